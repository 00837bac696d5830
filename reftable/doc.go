// Package reftable reads vendors' published crypto performance tables — as pasted from a performance guide or
// an application note — into reference figures: one Entry per (board, mode, algorithm, size, threads) with its
// throughput or operations per second, its CPU % where the vendor published one, and the published min and max
// where the table gave "mean (min m, max M)". Every cell shape a table uses for throughput is read for CPU %
// too: "98.80 (min 98.00, max 99.00)" is a CPU % of 98.8 whose range travels with the figure as a flag
// (CPURangeFlag, read back with CPURange).
//
// Layouts (several tables per file, in any mix): tab-separated text; text aligned with two or more spaces;
// Markdown pipe tables; reStructuredText simple tables, `csv-table` directives (with `:header:` or `:header-rows:`) and grid
// tables (`+---+` borders, `+===+` under the header, cells spanning several lines); and the space-separated
// shape of application notes, a row of sizes ("Frame Size (bytes)" then "16 64 256 …") or of key sizes and
// curves ("RSA size 512 1024 …", "ECDSA curve nistp224 …") followed by one row per algorithm or operation.
// Lines starting with '#' are comments; the first "# source:" line is the file's provenance (Result.Source).
// The prose around a table is its title: it may give the table's unit ("… in Mbit/s") and the `-multi N`
// of its commands.
//
// Columns are recognised from their headers: the algorithm and size columns ("Algorithm", "Size (bytes)",
// "Buffer Size (in bytes)", "Frame Size"); value columns by mode ("Accelerator" → ModeAccelerator, "ARM CE" →
// cpu, "ARM" → soft, or a fleet mode name), by board ("am335x-evm: throughput (KBytes/Sec)") and by what they
// measure: a throughput unit, "%", "CPU Load"/"CPU Usage", sign/s or verify/s. Options.Columns maps a header
// to a mode explicitly; Options.Board and Options.Mode name what a table does not.
//
// Units, written down once (units.go), by one rule: the symbol's case says bits or bytes, "B" a byte and "b" a
// bit (IEC 80000-13), so Mb/s, Mbps and Mbit/s are all 10^6 bits per second, and MB/s, MBps and MBytes/s 10^6
// bytes. KB/s, kB/s and KBytes/Sec are 10^3 bytes — openssl speed's own "1000s of bytes", which every guide's
// figures are taken from; kb/s, Kbps and kbit/s 10^3 bits; G is 10^9; MiB/s and KiB/s are 2^20 and 2^10
// bytes. A lower-case m or g ("mb/s", "mbps": milli, or a careless case that says neither bits nor bytes) is
// refused as ambiguous.
//
// Never a guess: a table that cannot be read unambiguously — a column with no unit and no unit in its title,
// a header naming no mode without Options.Mode, a ragged row, a header with no rows, a number out of bounds
// (opensslspeed's MaxBytesPerSec, MaxOpsPerSec, MaxBlockSize), a figure another table already gave, a CPU %
// with no throughput to go with — gives no figure at all: it is skipped, named in Result.Skipped as an *Error
// at its first line with why (and the line at fault), and the file's other tables are read. A file none of
// whose tables can be read is refused as that *Error. What concerns the whole file is refused whole: bytes
// that are not UTF-8, control characters, two -multi N in its text, a layout that cannot be split into tables.
//
// The package is pure: it reads only the bytes it is given and imports only protocol and opensslspeed.
package reftable
