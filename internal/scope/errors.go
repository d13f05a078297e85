package scope

import "errors"

// ErrUnknownScope reports an operation on a scope id that is not open.
var ErrUnknownScope = errors.New("unknown scope")
