// Package atomicfile writes an output file (a report, a JUnit file) so that it is either complete or not there:
// the bytes go to a temporary file in the same directory, which is synced and closed, and only then renamed
// over the destination. A full disk, a failing renderer or a failing close leaves an existing file as it was
// and no temporary file behind, and the caller learns of it before saying "wrote".
package atomicfile
