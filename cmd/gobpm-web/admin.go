package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
)

// adminUsage is the help of the admin subcommand.
const adminUsage = `usage:
  gobpm-web admin create --user NAME [--role ROLE] [--no-password] [--db FILE|URL]
      create a built-in user, with a role when --role names one (admin,
      developer, operator, worker, viewer; without --role the user has no
      rights until given some); the password is read from the first line of
      standard input (--no-password: a user who cannot log in and only owns
      tokens, e.g. a worker)
  gobpm-web admin grant --user NAME --grant PERM:KIND:PATTERN... [--db FILE|URL]
      give an existing user grants (e.g. --grant work:job-type:invoice-*)
  gobpm-web admin token --user NAME --name LABEL [--grant PERM:KIND:PATTERN]... [--ttl DURATION] [--db FILE|URL]
      mint an API token for an existing user, optionally restricted to the
      grants given (e.g. --grant work:job-type:invoice-*); prints the token
      once`

// runAdmin runs "gobpm-web admin …" against the database directly, the
// SQLite file or the PostgreSQL URL of --db (the server may be running:
// either database serves both; a running server sees the change within
// seconds).
func runAdmin(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, out io.Writer) error {
	if len(args) == 0 {
		return errors.New(adminUsage)
	}
	fs := flag.NewFlagSet("gobpm-web admin "+args[0], flag.ContinueOnError)
	fs.SetOutput(out)
	var dbc DBConfig
	if err := dbc.register(fs, getenv); err != nil {
		return err
	}
	user := fs.String("user", "", "the user")
	role := fs.String("role", "none", "create: the role to give (admin, developer, operator, worker, viewer, or none)")
	name := fs.String("name", "", "token: the token's label")
	ttl := fs.Duration("ttl", 0, "token: lifetime (0: until revoked)")
	noPassword := fs.Bool("no-password", false, "create: a user who cannot log in, only own tokens (a worker)")
	var grants []auth.Grant
	fs.Func("grant", "grant: give PERMISSION:KIND:PATTERN; token: restrict to it (repeatable)", func(v string) error {
		parts := strings.SplitN(v, ":", 3)
		if len(parts) != 3 {
			return fmt.Errorf("%q is not PERMISSION:KIND:PATTERN", v)
		}
		perm, err := auth.ParsePermission(parts[0])
		if err != nil {
			return err
		}
		kind, err := auth.ParseResourceKind(parts[1])
		if err != nil {
			return err
		}
		g, err := auth.NewGrant(perm, kind, parts[2])
		if err != nil {
			return err
		}
		grants = append(grants, g)
		return nil
	})
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *user == "" {
		return errors.New("--user is required")
	}
	st, err := dbc.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	acc, err := access.New(ctx, access.Config{Mode: access.ModeBuiltin, Store: st, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = acc.Close(cctx)
	}()
	switch args[0] {
	case "create":
		var password string
		if !*noPassword {
			line, err := bufio.NewReader(stdin).ReadString('\n')
			if err != nil && !errors.Is(err, io.EOF) {
				return fmt.Errorf("read the password from standard input: %w", err)
			}
			password = strings.TrimRight(line, "\r\n")
		}
		if password == "" && !*noPassword {
			return errors.New("give the password on standard input, e.g. printf '%s\\n' \"$PASSWORD\" | gobpm-web admin create --user ann")
		}
		if _, err := acc.CreateUser(ctx, "", access.NewUser{ID: *user, Password: password}); err != nil {
			return err
		}
		if *role != "none" {
			r, err := auth.ParseRole(*role)
			if err != nil {
				return err
			}
			if _, err := acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: *user}, Role: r}); err != nil {
				return err
			}
		}
		if *role == "none" {
			fmt.Fprintf(out, "created user %s with no role: give it rights with --role or 'gobpm-web admin grant'\n", *user)
		} else {
			fmt.Fprintf(out, "created user %s with role %s\n", *user, *role)
		}
		return nil
	case "grant":
		if len(grants) == 0 {
			return errors.New("--grant PERMISSION:KIND:PATTERN is required (repeatable)")
		}
		if _, err := acc.User(ctx, *user); err != nil {
			return fmt.Errorf("user %s: %w", *user, err)
		}
		for _, g := range grants {
			if _, err := acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: *user}, Grant: &g}); err != nil {
				return fmt.Errorf("grant %s to %s: %w", g, *user, err)
			}
			fmt.Fprintf(out, "granted %s to %s\n", g, *user)
		}
		return nil
	case "token":
		if *name == "" {
			return errors.New("--name is required")
		}
		secret, t, err := acc.MintToken(ctx, access.NewToken{Owner: *user, Name: *name, Grants: grants, TTL: *ttl})
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "token %s for %s (shown once):\n%s\n", t.ID, t.Owner, secret)
		return nil
	}
	return fmt.Errorf("unknown admin command %q\n%s", args[0], adminUsage)
}
