// Package inventory reads boards.toml: the boards, their defaults, sweep profiles, validation with file:line:column
// errors, and board selection (--boards, --tag, --all).
//
// The file has three kinds of tables: [defaults] (SSH settings, openssl, tags, modes and env every board gets
// unless it sets them itself), [boards.NAME] (one board; NAME is what --boards takes) and [profiles.NAME] (a
// sweep; "quick" and "full" are built in and a file may replace them). Decoding is strict: an unknown key is an
// error, because a typo must not be silently ignored. Every problem is reported at once, each as an *Error
// naming file:line:column, the board or profile, and what was expected.
//
// The board named "local" is the machine fleet runs on, reached without SSH. It is always in an inventory; a
// file may list it to give it tags, modes, env or an openssl path, but not SSH settings.
//
// Values that end up on a board (hosts, users, modes, env) are validated strictly even though the controller
// never hands them to a shell: anything a shell could read as syntax is refused with a position, so a mistake
// or a hostile file fails on the controller before anything runs.
package inventory
