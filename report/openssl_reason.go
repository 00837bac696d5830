package report

import (
	"path"
	"regexp"
	"strconv"
	"strings"
)

// A mode's reason as the probe records it is OpenSSL's error queue, first line: "engine afalg: not available:
// init failed: error:4000006D:lib(128)::reason(109):../engines/e_afalg.c:859:". That text is the evidence and
// stays stored as it is (fleet show --raw, the JSON listings); PlainReason is what people read in its place.
// OpenSSL 3 prints an engine's reason as a bare number when the engine's own error strings are gone with the
// engine that failed to load, which is exactly when the reason matters, so the afalg engine's codes are decoded
// here from its header (engines/e_afalg_err.h, the same codes in 1.1.1 and 3.x).

// opensslRecord is one line of OpenSSL's error queue: the thread id, "error:", the packed code, then library,
// function (empty in 3.x), reason, and from ERR_print_errors the source file, its line and the error's data.
var opensslRecord = regexp.MustCompile(`(?:[0-9A-Fa-f]{4,}:)?error:([0-9A-Fa-f]{8}):([^:\n]*):([^:\n]*):([^:\n]*)(?::([^:\n]*):([0-9]+):([^\n]*))?`)

// enginePrefix is how the probe introduces an engine's failure: "engine afalg: not available: [init failed: ]".
var enginePrefix = regexp.MustCompile(`^engine ([^\s:]+): (?:not available: )?(?:init failed: )?$`)

// placeholder is the name OpenSSL prints for a library or reason whose strings are not loaded: "lib(128)",
// "reason(109)".
var placeholder = regexp.MustCompile(`^(?:lib|reason|func)\(([0-9]+)\)$`)

// afalgReasons are the afalg engine's reason codes (AFALG_R_*) and strings, in words that say what the kernel lacks.
var afalgReasons = []struct {
	code int
	text string // OpenSSL's own string for it, lower case, as 1.1.1 prints it when the strings are loaded
	says string
}{
	{109, "socket create failed", "the kernel has no AF_ALG sockets"},
	{103, "socket bind failed", "the kernel has no AF_ALG driver for the cipher"},
	{101, "kernel does not support afalg", "the kernel is too old for AF_ALG"},
	{107, "kernel does not support async afalg", "the kernel is too old for asynchronous AF_ALG"},
	{111, "failed to get platform info", "it could not read the kernel's version"},
	{110, "socket accept failed", "an AF_ALG socket could not be opened for the cipher"},
	{106, "socket set key failed", "the kernel refused the key"},
	{104, "socket operation failed", "an AF_ALG operation failed"},
	{105, "io setup failed", "the kernel's asynchronous I/O could not be set up"},
	{108, "eventfd failed", "an eventfd could not be created"},
	{102, "mem alloc failed", "it ran out of memory"},
	{100, "init failed", "its initialisation failed"},
}

// knownReasons are OpenSSL's own reason strings that mean something simpler to whoever reads a run's summary.
var knownReasons = map[string]string{
	"no such engine":                    "OpenSSL has no engine of that name",
	"dso not found":                     "its shared library is not installed",
	"could not load the shared library": "its shared library could not be loaded",
	"init failed":                       "its initialisation failed",
	"unsupported":                       "this OpenSSL does not support the algorithm",
}

// PlainReason is reason with each OpenSSL error record in it put in words, for people: a known failure as a
// sentence ("the afalg engine did not load: the kernel has no AF_ALG (…)"), any other with the error-code noise
// (thread id, packed code's fields, source file and line) stripped and its reason, function and data kept, the
// code last ("no such thing in some_func (OpenSSL error 1300006D)"). A reason without an OpenSSL error record is
// returned as it is.
func PlainReason(reason string) string {
	loc := opensslRecord.FindStringSubmatchIndex(reason)
	if loc == nil {
		return reason
	}
	rec := parseRecord(reason, loc)
	if m := enginePrefix.FindStringSubmatch(reason[:loc[0]]); m != nil {
		return "the " + m[1] + " engine did not load: " + rec.plain(true) + PlainReason(reason[loc[1]:])
	}
	return reason[:loc[0]] + rec.plain(false) + PlainReason(reason[loc[1]:])
}

type record struct {
	code                        string
	lib, fn, reason, file, data string
}

func parseRecord(s string, loc []int) record {
	group := func(i int) string {
		if loc[2*i] < 0 {
			return ""
		}
		return strings.TrimSpace(s[loc[2*i]:loc[2*i+1]])
	}
	return record{code: strings.ToUpper(group(1)), lib: group(2), fn: group(3), reason: group(4), file: group(5), data: group(7)}
}

// plain is the record in words; engine says that the words follow "the NAME engine did not load: ".
func (r record) plain(engine bool) string {
	if says, ok := r.afalg(); ok {
		return says
	}
	if says, ok := knownReasons[strings.ToLower(r.reason)]; ok && engine {
		if detail := r.loadDetail(); detail != "" {
			says += " (" + detail + ")"
		}
		return says
	}
	var words []string
	reason := r.reason
	if m := placeholder.FindStringSubmatch(reason); m != nil {
		reason = "reason " + m[1]
	}
	if reason != "" {
		words = append(words, reason)
	}
	if r.fn != "" && placeholder.FindStringSubmatch(r.fn) == nil {
		words = append(words, "in "+r.fn)
	} else if r.file != "" && (reason == "" || strings.HasPrefix(reason, "reason ")) {
		words = append(words, "in "+path.Base(r.file))
	}
	text := strings.Join(words, " ")
	data := r.data
	if d := r.loadDetail(); d != "" {
		data = d // the file once, not "filename(F): F: …"
	}
	if data != "" {
		text += ": " + data
	}
	return strings.TrimSpace(text) + " (OpenSSL error " + r.code + ")"
}

// afalg decodes a record of the afalg engine, whose library number OpenSSL assigns at load time: known by its
// source file or function, its reason from "reason(N)" or its string.
func (r record) afalg() (string, bool) {
	if !strings.Contains(r.file, "e_afalg") && !strings.HasPrefix(strings.ToLower(r.fn), "afalg_") {
		return "", false
	}
	code := -1
	if m := placeholder.FindStringSubmatch(r.reason); m != nil {
		code, _ = strconv.Atoi(m[1])
	}
	text := strings.ToLower(r.reason)
	for _, a := range afalgReasons {
		if a.code == code || text != "" && strings.HasPrefix(a.text, text) {
			return a.says, true
		}
	}
	return "", false
}

// loadDetail is what a failed shared-library load says about the file: "libafalg.so: cannot open shared object
// file: No such file or directory" from its data, "" when it names none.
func (r record) loadDetail() string {
	if _, after, ok := strings.Cut(r.data, "): "); ok {
		return after
	}
	return ""
}
