package store

import (
	"errors"
	"fmt"
)

// Error codes callers branch on. The api package maps them to HTTP statuses.
const (
	ENOTFOUND  = "not_found"
	ECONFLICT  = "conflict"
	EINVALID   = "invalid"
	EFORBIDDEN = "forbidden"
	EINTERNAL  = "internal"
)

// Error is an error of the runtime or a store with a code from the closed
// set above.
type Error struct {
	Code    string
	Message string
	// Field names the offending input field, if any.
	Field string
	// Err is the wrapped cause, if any.
	Err error
}

// Error implements error.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %v", e.Message, e.Err)
	}
	return e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Sentinels returned by stores.
var (
	// ErrNotFound reports an unknown id.
	ErrNotFound = &Error{Code: ENOTFOUND, Message: "not found"}
	// ErrConflict reports a revision mismatch or a uniqueness violation.
	ErrConflict = &Error{Code: ECONFLICT, Message: "conflict"}
	// ErrLockLost reports a step whose LockGuard failed: the job no longer
	// holds the caller's lock token (it was activated again).
	ErrLockLost = &Error{Code: ECONFLICT, Message: "the job's lock is no longer the caller's"}
)

// ErrorCode returns the code of err, EINTERNAL for anything unknown.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// Errorf builds an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}
