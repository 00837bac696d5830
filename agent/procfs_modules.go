package agent

import (
	"errors"
	"strconv"
	"strings"
)

// parseProcModules returns the module names of /proc/modules ("name size refcount deps state address"), in file
// order (the kernel lists each module once). A line without a name and its size is refused with its number; the
// names before it are kept. The controller sorts them and picks the crypto-related ones (protocol.CryptoModules).
func parseProcModules(text string) ([]string, error) {
	names := []string{}
	for i, line := range strings.Split(text, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if len(fields) < 2 || !validModuleName(fields[0]) {
			return names, errors.New("parse /proc/modules line " + strconv.Itoa(i+1) + ": not \"name size refcount deps state address\"")
		}
		names = append(names, fields[0])
	}
	return names, nil
}

func validModuleName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}
