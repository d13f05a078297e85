package access

import (
	"context"
	"errors"
	"fmt"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// Basic authenticates HTTP Basic credentials, user:password of a builtin
// user (what Camunda 7 clients send to /engine-rest). It counts against the
// same throttle as a password login from addr and, like a login, refuses a
// disabled user. Any refusal is ErrUnauthenticated (wrapped with the
// reason, which the API logs but does not answer); a busy hash pool is
// passed on as it is. Each call verifies the password: Basic credentials
// open no session.
func (s *Service) Basic(ctx context.Context, user, password, addr string) (Caller, error) {
	if s.cfg.Mode != ModeBuiltin {
		return Caller{}, fmt.Errorf("%w: Basic credentials exist only with --auth=builtin", ErrUnauthenticated)
	}
	release, err := s.throttle.Begin(user, addr)
	defer release()
	if err != nil {
		return Caller{}, err
	}
	u, err := s.store.User(ctx, auth.UserID(user))
	switch {
	case runtime.ErrorCode(err) == runtime.ENOTFOUND || (err == nil && u.PasswordHash == ""):
		if err := s.hashing.VerifyPassword(ctx, s.dummyHash, password); notTried(err) {
			return Caller{}, fmt.Errorf("access: basic %s: %w", user, err)
		}
		return Caller{}, s.loginFailed(user, addr, "no such user, or one without a password")
	case err != nil:
		return Caller{}, fmt.Errorf("access: basic %s: %w", user, err)
	}
	if err := s.hashing.VerifyPassword(ctx, u.PasswordHash, password); err != nil {
		if notTried(err) || errors.Is(err, auth.ErrMalformedHash) {
			return Caller{}, fmt.Errorf("access: basic %s: %w", user, err)
		}
		return Caller{}, s.loginFailed(user, addr, "wrong password")
	}
	if u.Disabled {
		return Caller{}, s.loginFailed(user, addr, "user disabled")
	}
	s.throttle.Success(user, addr)
	p, disabled, known, err := s.resolve(ctx, u.ID, nil)
	if err != nil {
		return Caller{}, fmt.Errorf("access: basic %s: %w", user, err)
	}
	if disabled || !known {
		return Caller{}, fmt.Errorf("%w: user %s is disabled or gone", ErrUnauthenticated, user)
	}
	return Caller{Principal: p, Via: "basic"}, nil
}
