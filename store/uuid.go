package store

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
)

// A run's UUID names it across databases: ids are each database's own (a copied run gets a new id in its
// destination), the UUID travels with the run, so `fleet db copy` knows what is already there.

// newRunUUID returns a random (version 4) UUID in its canonical lower-case form.
//
// Kept rather than github.com/google/uuid (already in the module graph, through modernc): generating is
// crypto/rand and the two masks of RFC 9562 §5.4, tested in uuid_test.go; uuid.Parse would not replace
// IsRunUUID, since it also accepts {braced}, urn:uuid: and undashed forms that must not name the same run
// two ways, so the library would add a direct dependency and save four lines.
func newRunUUID() string {
	var b [16]byte
	rand.Read(b[:])         // never fails (crypto/rand panics rather than return an error since Go 1.24)
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // variant 10 (RFC 9562)
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// uuidRE matches a UUID in the canonical 8-4-4-4-12 form, either case.
var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// IsRunUUID reports whether s is spelled like a run's UUID (8-4-4-4-12 hex digits, either case).
func IsRunUUID(s string) bool { return uuidRE.MatchString(s) }

// checkRunUUID normalises a UUID given to BeginRun or a copy, or makes one when it is empty.
func checkRunUUID(s string) (string, error) {
	if s == "" {
		return newRunUUID(), nil
	}
	if !IsRunUUID(s) {
		return "", fmt.Errorf("run uuid %q is not a UUID (want 8-4-4-4-12 hex digits)", s)
	}
	return strings.ToLower(s), nil
}
