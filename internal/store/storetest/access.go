package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/store"
)

// MustAddUser creates user id, created at t0.
func MustAddUser(tb testing.TB, db Store, id auth.UserID) {
	tb.Helper()
	if err := db.CreateUser(context.Background(), access.User{ID: id, CreatedAt: t0}); err != nil {
		tb.Fatal(err)
	}
}

// MustAddGroup creates group id with members, created at t0.
func MustAddGroup(tb testing.TB, db Store, id auth.GroupID, members ...auth.UserID) {
	tb.Helper()
	ctx := context.Background()
	if err := db.CreateGroup(ctx, access.Group{ID: id, CreatedAt: t0}); err != nil {
		tb.Fatal(err)
	}
	for _, u := range members {
		if err := db.SetMember(ctx, id, u, true); err != nil {
			tb.Fatal(err)
		}
	}
}

// MustGrant gives subject role (a built-in role name) or grant ("perm kind
// pattern") and returns the record.
func MustGrant(tb testing.TB, db Store, kind access.SubjectKind, id, what string) access.GrantRecord {
	tb.Helper()
	g := access.GrantRecord{Subject: access.Subject{Kind: kind, ID: id}, CreatedAt: t0, CreatedBy: "root"}
	if f := strings.Fields(what); len(f) == 3 {
		gr, err := auth.NewGrant(auth.Permission(f[0]), auth.ResourceKind(f[1]), f[2])
		if err != nil {
			tb.Fatal(err)
		}
		g.Grant = &gr
	} else {
		g.Role = auth.Role(what)
	}
	out, err := db.AddGrant(context.Background(), g)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// grantIDs returns the IDs of grants.
func grantIDs(grants []access.GrantRecord) []int64 {
	ids := make([]int64, len(grants))
	for i, g := range grants {
		ids[i] = g.ID
	}
	return ids
}

// seededRand is a deterministic random source for minting tokens and
// sessions.
func seededRand(seed byte) *rand.ChaCha8 {
	var s [32]byte
	s[0] = seed
	return rand.NewChaCha8(s)
}

// MustMintToken mints and stores a token of owner created at created and
// returns its string and record.
func MustMintToken(tb testing.TB, db Store, seed byte, owner auth.UserID, created time.Time, r *auth.Restriction) (string, auth.Token) {
	tb.Helper()
	s, tok, err := auth.MintToken(seededRand(seed), created, auth.TokenRequest{Owner: owner, Name: "worker", Restriction: r})
	if err != nil {
		tb.Fatal(err)
	}
	if err := db.CreateToken(context.Background(), tok); err != nil {
		tb.Fatal(err)
	}
	return s, tok
}

// MustNewSession stores a session of user created at created.
func MustNewSession(tb testing.TB, db Store, seed byte, user auth.UserID, created time.Time, groups ...auth.GroupID) (string, auth.Session) {
	tb.Helper()
	cookie, s, err := auth.NewSession(seededRand(seed), created, user, groups, auth.DefaultSessionPolicy())
	if err != nil {
		tb.Fatal(err)
	}
	if err := db.CreateSession(context.Background(), s); err != nil {
		tb.Fatal(err)
	}
	return cookie, s
}

// wantErr fails tb unless err wraps target (nil: err is nil).
func wantErr(tb testing.TB, what string, err, target error) {
	tb.Helper()
	switch {
	case target == nil && err != nil:
		tb.Errorf("%s: %v", what, err)
	case target != nil && !errors.Is(err, target):
		tb.Errorf("%s: error %v, want %v", what, err, target)
	}
}

func testUsers(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)

	if n, err := db.CountUsers(ctx); n != 0 || err != nil {
		t.Fatalf("CountUsers of a new store = %d, %v", n, err)
	}
	ann := access.User{ID: "ann", Name: "Ann Smith", PasswordHash: "$argon2id$v=19$m=64,t=1,p=1$c2FsdA$a2V5", CreatedAt: t0}
	if err := db.CreateUser(ctx, ann); err != nil {
		t.Fatal(err)
	}
	for _, id := range []auth.UserID{"cy", "bob", "dee", "worker-1"} {
		MustAddUser(t, db, id)
	}
	got, err := db.User(ctx, "ann")
	if err != nil || !reflect.DeepEqual(got, ann) {
		t.Fatalf("User = %+v, %v; want %+v", got, err, ann)
	}

	for _, tt := range []struct {
		name string
		u    access.User
		want error
	}{
		{name: "taken id", u: access.User{ID: "ann", CreatedAt: t0}, want: store.ErrConflict},
		{name: "no time", u: access.User{ID: "eve"}},
		{name: "empty id", u: access.User{CreatedAt: t0}},
	} {
		err := db.CreateUser(ctx, tt.u)
		if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
			t.Errorf("CreateUser(%s) = %v, want an error wrapping %v", tt.name, err, tt.want)
		}
	}
	if err := db.CreateUser(ctx, access.User{ID: "ann", CreatedAt: t0}); err == nil || !strings.Contains(err.Error(), "store: create user ann") {
		t.Errorf("a conflict says what: %v", err)
	}
	if _, err := db.User(ctx, "eve"); !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "user eve") {
		t.Errorf("User(eve) = %v, want a not-found naming eve", err)
	}

	// UpdateUser replaces name, hash and disabled; CreatedAt stays.
	upd := access.User{ID: "ann", Name: "Ann", PasswordHash: "", Disabled: true, CreatedAt: t0.Add(time.Hour)}
	if err := db.UpdateUser(ctx, upd); err != nil {
		t.Fatal(err)
	}
	upd.CreatedAt = t0
	if got, err := db.User(ctx, "ann"); err != nil || !reflect.DeepEqual(got, upd) {
		t.Errorf("after update User = %+v, %v; want %+v", got, err, upd)
	}
	wantErr(t, "UpdateUser(eve)", db.UpdateUser(ctx, access.User{ID: "eve"}), store.ErrNotFound)

	ids := func(us []access.User) []auth.UserID {
		var out []auth.UserID
		for _, u := range us {
			out = append(out, u.ID)
		}
		return out
	}
	for _, tt := range []struct {
		after auth.UserID
		limit int
		want  []auth.UserID
	}{
		{limit: 0, want: []auth.UserID{"ann", "bob", "cy", "dee", "worker-1"}},
		{limit: 2, want: []auth.UserID{"ann", "bob"}},
		{after: "bob", limit: 2, want: []auth.UserID{"cy", "dee"}},
		{after: "b", limit: 1, want: []auth.UserID{"bob"}},
		{after: "worker-1", limit: 10, want: nil},
	} {
		got, err := db.Users(ctx, tt.after, tt.limit)
		if err != nil || !slices.Equal(ids(got), tt.want) {
			t.Errorf("Users(%q, %d) = %v, %v; want %v", tt.after, tt.limit, ids(got), err, tt.want)
		}
	}
	if n, err := db.CountUsers(ctx); n != 5 || err != nil {
		t.Errorf("CountUsers = %d, %v", n, err)
	}
}

func testGroupsAndMembers(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	for _, u := range []auth.UserID{"ann", "bob", "cy"} {
		MustAddUser(t, db, u)
	}
	ops := access.Group{ID: "ops", Name: "Operations", CreatedAt: t0.Add(time.Second)}
	if err := db.CreateGroup(ctx, ops); err != nil {
		t.Fatal(err)
	}
	MustAddGroup(t, db, "devs")
	MustAddGroup(t, db, "admins")
	wantErr(t, "CreateGroup(ops) again", db.CreateGroup(ctx, access.Group{ID: "ops", CreatedAt: t0}), store.ErrConflict)
	if err := db.CreateGroup(ctx, access.Group{ID: "x"}); err == nil {
		t.Error("CreateGroup without a time succeeded")
	}
	groups, err := db.Groups(ctx)
	if err != nil || len(groups) != 3 || groups[0].ID != "admins" || groups[1].ID != "devs" || !reflect.DeepEqual(groups[2], ops) {
		t.Fatalf("Groups = %+v, %v", groups, err)
	}

	for _, tt := range []struct {
		group  auth.GroupID
		user   auth.UserID
		member bool
		want   error
	}{
		{"ops", "bob", true, nil},
		{"ops", "ann", true, nil},
		{"ops", "ann", true, nil}, // twice: no error, one membership
		{"devs", "ann", true, nil},
		{"admins", "cy", true, nil},
		{"admins", "cy", false, nil},
		{"admins", "cy", false, nil}, // not a member: no error
		{"admins", "bob", false, nil},
		{"nobody", "ann", true, store.ErrNotFound},
		{"ops", "eve", true, store.ErrNotFound},
		{"ops", "eve", false, store.ErrNotFound},
		{"nobody", "ann", false, store.ErrNotFound},
	} {
		wantErr(t, "SetMember("+string(tt.group)+", "+string(tt.user)+")", db.SetMember(ctx, tt.group, tt.user, tt.member), tt.want)
	}
	if err := db.SetMember(ctx, "ops", "eve", true); err == nil || !strings.Contains(err.Error(), "user eve") {
		t.Errorf("SetMember of a missing user does not name it: %v", err)
	}

	for _, tt := range []struct {
		user auth.UserID
		want []auth.GroupID
		err  error
	}{
		{user: "ann", want: []auth.GroupID{"devs", "ops"}},
		{user: "bob", want: []auth.GroupID{"ops"}},
		{user: "cy", want: nil},
		{user: "eve", err: store.ErrNotFound},
	} {
		got, err := db.GroupsOf(ctx, tt.user)
		if !slices.Equal(got, tt.want) {
			t.Errorf("GroupsOf(%s) = %v, want %v", tt.user, got, tt.want)
		}
		wantErr(t, "GroupsOf("+string(tt.user)+")", err, tt.err)
	}
	for _, tt := range []struct {
		group auth.GroupID
		want  []auth.UserID
		err   error
	}{
		{group: "ops", want: []auth.UserID{"ann", "bob"}},
		{group: "devs", want: []auth.UserID{"ann"}},
		{group: "admins", want: nil},
		{group: "nobody", err: store.ErrNotFound},
	} {
		got, err := db.Members(ctx, tt.group)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Members(%s) = %v, want %v", tt.group, got, tt.want)
		}
		wantErr(t, "Members("+string(tt.group)+")", err, tt.err)
	}
	if err := db.SetMember(ctx, "ops", "ann", false); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Members(ctx, "ops"); !slices.Equal(got, []auth.UserID{"bob"}) {
		t.Errorf("after removing ann, Members(ops) = %v", got)
	}
}

func testAddGrant(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	MustAddUser(t, db, "ann")
	MustAddGroup(t, db, "ops")

	role := access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "ann"}, Role: auth.RoleDeveloper,
		CreatedAt: t0, CreatedBy: "root"}
	got, err := db.AddGrant(ctx, role)
	if err != nil {
		t.Fatal(err)
	}
	if role.ID = got.ID; got.ID <= 0 || !reflect.DeepEqual(got, role) {
		t.Fatalf("AddGrant = %+v, want %+v", got, role)
	}
	start, err := auth.NewGrant(auth.PermStart, auth.KindProcess, "order-*")
	if err != nil {
		t.Fatal(err)
	}
	single := access.GrantRecord{Subject: access.Subject{Kind: access.SubjectGroup, ID: "ops"}, Grant: &start,
		CreatedAt: t0.Add(time.Second).In(time.FixedZone("CET", 3600))}
	got, err = db.AddGrant(ctx, single)
	if err != nil {
		t.Fatal(err)
	}
	single.CreatedAt = t0.Add(time.Second) // as a read returns it: in UTC
	if single.ID = got.ID; got.ID <= role.ID || !reflect.DeepEqual(got, single) || got.Grant == &start {
		t.Fatalf("AddGrant = %+v, want %+v in a grant of its own", got, single)
	}

	// The same role or grant again returns the first record as it is.
	again := role
	again.ID, again.CreatedAt, again.CreatedBy = 0, t0.Add(time.Hour), "someone"
	if got, err := db.AddGrant(ctx, again); err != nil || !reflect.DeepEqual(got, role) {
		t.Errorf("AddGrant of the same role = %+v, %v; want %+v", got, err, role)
	}
	same, _ := auth.NewGrant(auth.PermStart, auth.KindProcess, "order-*")
	if got, err := db.AddGrant(ctx, access.GrantRecord{Subject: single.Subject, Grant: &same, CreatedAt: t0.Add(time.Hour)}); err != nil ||
		!reflect.DeepEqual(got, single) {
		t.Errorf("AddGrant of the same grant = %+v, %v; want %+v", got, err, single)
	}
	// The same role to another subject, or another pattern, is new.
	other := MustGrant(t, db, access.SubjectGroup, "ops", string(auth.RoleDeveloper))
	narrower := MustGrant(t, db, access.SubjectGroup, "ops", "start process order-eu")
	if other.ID <= single.ID || narrower.ID <= other.ID {
		t.Errorf("ids %d, %d after %d", other.ID, narrower.ID, single.ID)
	}

	bad := auth.Grant{Permission: auth.PermAdmin, Kind: auth.KindProcess, Pattern: auth.Any()}
	user := access.Subject{Kind: access.SubjectUser, ID: "ann"}
	for _, tt := range []struct {
		name string
		g    access.GrantRecord
		want error // nil: any error
	}{
		{name: "role and grant", g: access.GrantRecord{Subject: user, Role: auth.RoleViewer, Grant: &start, CreatedAt: t0}},
		{name: "neither", g: access.GrantRecord{Subject: user, CreatedAt: t0}},
		{name: "unknown role", g: access.GrantRecord{Subject: user, Role: "root", CreatedAt: t0}, want: auth.ErrInvalidGrant},
		{name: "invalid grant", g: access.GrantRecord{Subject: user, Grant: &bad, CreatedAt: t0}, want: auth.ErrInvalidGrant},
		{name: "zero pattern", g: access.GrantRecord{Subject: user, Grant: &auth.Grant{Permission: auth.PermRead, Kind: auth.KindProcess}, CreatedAt: t0}, want: auth.ErrInvalidGrant},
		{name: "no time", g: access.GrantRecord{Subject: user, Role: auth.RoleViewer}},
		{name: "unknown subject kind", g: access.GrantRecord{Subject: access.Subject{Kind: "robot", ID: "ann"}, Role: auth.RoleViewer, CreatedAt: t0}},
		{name: "zero subject", g: access.GrantRecord{Role: auth.RoleViewer, CreatedAt: t0}},
		{name: "missing user", g: access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "eve"}, Role: auth.RoleViewer, CreatedAt: t0}, want: store.ErrNotFound},
		{name: "missing group", g: access.GrantRecord{Subject: access.Subject{Kind: access.SubjectGroup, ID: "ann"}, Role: auth.RoleViewer, CreatedAt: t0}, want: store.ErrNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := db.AddGrant(ctx, tt.g)
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Errorf("AddGrant = %v, want an error wrapping %v", err, tt.want)
			}
			if errors.Is(err, store.ErrConflict) {
				t.Errorf("AddGrant = %v, a conflict", err)
			}
		})
	}
	all, err := db.Grants(ctx, access.Subject{})
	if err != nil || !slices.Equal(grantIDs(all), []int64{role.ID, single.ID, other.ID, narrower.ID}) {
		t.Errorf("refused grants were stored: %v, %v", grantIDs(all), err)
	}
}

func testGrantsAndRemoveGrant(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	MustAddUser(t, db, "ann")
	MustAddUser(t, db, "bob")
	MustAddGroup(t, db, "ops")
	MustAddGroup(t, db, "devs")
	g1 := MustGrant(t, db, access.SubjectUser, "ann", "viewer")
	g2 := MustGrant(t, db, access.SubjectGroup, "ops", "operator")
	g3 := MustGrant(t, db, access.SubjectUser, "ann", "work job-type invoice-*")
	g4 := MustGrant(t, db, access.SubjectGroup, "ops", "admin system *")

	for _, tt := range []struct {
		subject access.Subject
		want    []int64
		err     error
	}{
		{subject: access.Subject{}, want: []int64{g1.ID, g2.ID, g3.ID, g4.ID}},
		{subject: access.Subject{Kind: access.SubjectUser, ID: "ann"}, want: []int64{g1.ID, g3.ID}},
		{subject: access.Subject{Kind: access.SubjectGroup, ID: "ops"}, want: []int64{g2.ID, g4.ID}},
		{subject: access.Subject{Kind: access.SubjectUser, ID: "bob"}, want: nil},
		{subject: access.Subject{Kind: access.SubjectGroup, ID: "devs"}, want: nil},
		{subject: access.Subject{Kind: access.SubjectGroup, ID: "ann"}, err: store.ErrNotFound},
		{subject: access.Subject{Kind: access.SubjectUser, ID: "eve"}, err: store.ErrNotFound},
	} {
		got, err := db.Grants(ctx, tt.subject)
		if !slices.Equal(grantIDs(got), tt.want) {
			t.Errorf("Grants(%+v) = %v, want %v", tt.subject, grantIDs(got), tt.want)
		}
		wantErr(t, "Grants", err, tt.err)
	}
	if _, err := db.Grants(ctx, access.Subject{Kind: "robot", ID: "x"}); err == nil {
		t.Error("Grants of an unknown subject kind succeeded")
	}
	got, err := db.Grants(ctx, access.Subject{Kind: access.SubjectUser, ID: "ann"})
	if err != nil || !reflect.DeepEqual(got, []access.GrantRecord{g1, g3}) {
		t.Errorf("Grants(ann) = %+v, want %+v", got, []access.GrantRecord{g1, g3})
	}
	if g := got[1].Grant; g == nil || !g.Covers(auth.PermWork, auth.KindJobType, "invoice-eu") || g.Covers(auth.PermWork, auth.KindJobType, "ship") {
		t.Errorf("read-back grant %v does not cover what it gave", g)
	}

	if err := db.RemoveGrant(ctx, g4.ID); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "RemoveGrant twice", db.RemoveGrant(ctx, g4.ID), store.ErrNotFound)
	wantErr(t, "RemoveGrant(0)", db.RemoveGrant(ctx, 0), store.ErrNotFound)
	// The newest id is not given out again: a stale revocation cannot hit
	// a new grant.
	g5 := MustGrant(t, db, access.SubjectGroup, "ops", "admin system *")
	if g5.ID <= g4.ID {
		t.Errorf("new grant id %d reuses removed %d", g5.ID, g4.ID)
	}
	if all, _ := db.Grants(ctx, access.Subject{}); !slices.Equal(grantIDs(all), []int64{g1.ID, g2.ID, g3.ID, g5.ID}) {
		t.Errorf("after remove, Grants = %v", grantIDs(all))
	}
}

// testStoredGrantOutlivesItsRule checks that a grant the auth rules no
// longer accept (a permission since renamed) is read back, covering
// nothing, instead of failing the grants read along with it.
func testStoredGrantOutlivesItsRule(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	MustAddUser(t, db, "ann")
	g := MustGrant(t, db, access.SubjectUser, "ann", "read process *")
	if err := db.Exec(`UPDATE grants SET permission = 'peek' WHERE id = ?`, g.ID); err != nil {
		t.Fatal(err)
	}
	got, err := db.GrantsFor(ctx, "ann", nil)
	if err != nil || len(got) != 1 || got[0].Grant == nil || got[0].Grant.Permission != "peek" {
		t.Fatalf("GrantsFor = %+v, %v", got, err)
	}
	if got[0].Grant.Covers("peek", auth.KindProcess, "order") {
		t.Error("an invalid grant covers something")
	}
}

func testGrantsFor(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	MustAddUser(t, db, "ann")
	MustAddUser(t, db, "bob")
	MustAddGroup(t, db, "ops")
	MustAddGroup(t, db, "devs")
	MustAddGroup(t, db, "eu")
	opsRole := MustGrant(t, db, access.SubjectGroup, "ops", "operator")
	annRole := MustGrant(t, db, access.SubjectUser, "ann", "viewer")
	bobRole := MustGrant(t, db, access.SubjectUser, "bob", "worker")
	devStart := MustGrant(t, db, access.SubjectGroup, "devs", "start process order-*")
	annWork := MustGrant(t, db, access.SubjectUser, "ann", "work job-type invoice")
	euRead := MustGrant(t, db, access.SubjectGroup, "eu", "read decision *")

	for _, tt := range []struct {
		name   string
		user   auth.UserID
		groups []auth.GroupID
		want   []int64
	}{
		{name: "user alone", user: "ann", want: []int64{annRole.ID, annWork.ID}},
		{name: "user and groups", user: "ann", groups: []auth.GroupID{"ops", "devs"}, want: []int64{opsRole.ID, annRole.ID, devStart.ID, annWork.ID}},
		{name: "empty groups", user: "bob", groups: []auth.GroupID{}, want: []int64{bobRole.ID}},
		{name: "unknown groups", user: "bob", groups: []auth.GroupID{"nobody", "ann"}, want: []int64{bobRole.ID}},
		{name: "user not stored (OIDC)", user: "oidc|42", groups: []auth.GroupID{"eu", "ops"}, want: []int64{opsRole.ID, euRead.ID}},
		{name: "nobody", user: "", groups: nil, want: nil},
		{name: "a group named like a user", user: "eve", groups: []auth.GroupID{"ann"}, want: nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.GrantsFor(ctx, tt.user, tt.groups)
			if err != nil || !slices.Equal(grantIDs(got), tt.want) {
				t.Errorf("GrantsFor(%s, %v) = %v, %v; want %v", tt.user, tt.groups, grantIDs(got), err, tt.want)
			}
		})
	}
	got, err := db.GrantsFor(ctx, "ann", []auth.GroupID{"devs"})
	if err != nil || !reflect.DeepEqual(got, []access.GrantRecord{annRole, devStart, annWork}) {
		t.Errorf("GrantsFor(ann, devs) = %+v, %v", got, err)
	}
}

func testDeleteUserCascades(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	MustAddUser(t, db, "ann")
	MustAddUser(t, db, "bob")
	MustAddGroup(t, db, "ops", "ann", "bob")
	MustAddGroup(t, db, "devs", "ann")
	MustGrant(t, db, access.SubjectUser, "ann", "admin")
	MustGrant(t, db, access.SubjectUser, "ann", "act-as system *")
	bobGrant := MustGrant(t, db, access.SubjectUser, "bob", "viewer")
	opsGrant := MustGrant(t, db, access.SubjectGroup, "ops", "operator")
	_, annTok := MustMintToken(t, db, 1, "ann", t0, nil)
	_, bobTok := MustMintToken(t, db, 2, "bob", t0, nil)
	_, annSess := MustNewSession(t, db, 3, "ann", t0)
	_, bobSess := MustNewSession(t, db, 4, "bob", t0)

	if err := db.DeleteUser(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "DeleteUser twice", db.DeleteUser(ctx, "ann"), store.ErrNotFound)
	wantErr(t, "DeleteUser(eve)", db.DeleteUser(ctx, "eve"), store.ErrNotFound)
	_, err := db.User(ctx, "ann")
	wantErr(t, "User(ann)", err, store.ErrNotFound)
	_, err = db.Token(ctx, annTok.ID)
	wantErr(t, "Token of ann", err, store.ErrNotFound)
	_, err = db.Session(ctx, annSess.IDHash)
	wantErr(t, "Session of ann", err, store.ErrNotFound)
	if got, err := db.Members(ctx, "ops"); err != nil || !slices.Equal(got, []auth.UserID{"bob"}) {
		t.Errorf("Members(ops) = %v, %v", got, err)
	}
	if got, err := db.Members(ctx, "devs"); err != nil || got != nil {
		t.Errorf("Members(devs) = %v, %v", got, err)
	}
	if got, err := db.Grants(ctx, access.Subject{}); err != nil || !slices.Equal(grantIDs(got), []int64{bobGrant.ID, opsGrant.ID}) {
		t.Errorf("Grants = %v, %v", grantIDs(got), err)
	}
	// Bob keeps everything.
	if _, err := db.Token(ctx, bobTok.ID); err != nil {
		t.Errorf("Token of bob: %v", err)
	}
	if _, err := db.Session(ctx, bobSess.IDHash); err != nil {
		t.Errorf("Session of bob: %v", err)
	}
	// A new ann inherits nothing of the old one.
	MustAddUser(t, db, "ann")
	if got, err := db.GroupsOf(ctx, "ann"); err != nil || got != nil {
		t.Errorf("GroupsOf(new ann) = %v, %v", got, err)
	}
	if got, err := db.GrantsFor(ctx, "ann", nil); err != nil || got != nil {
		t.Errorf("GrantsFor(new ann) = %v, %v", got, err)
	}
	if got, err := db.Tokens(ctx, "ann"); err != nil || got != nil {
		t.Errorf("Tokens(new ann) = %v, %v", got, err)
	}
	if rows, err := db.Query(`SELECT COUNT(*) FROM sessions WHERE user_id = 'ann'`); err != nil || rows[0][0] != int64(0) {
		t.Errorf("sessions of new ann = %v, %v", rows, err)
	}
}

func testDeleteGroupCascades(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	MustAddUser(t, db, "ann")
	MustAddGroup(t, db, "ops", "ann")
	MustAddGroup(t, db, "devs", "ann")
	MustGrant(t, db, access.SubjectGroup, "ops", "operator")
	devs := MustGrant(t, db, access.SubjectGroup, "devs", "developer")
	ann := MustGrant(t, db, access.SubjectUser, "ann", "viewer")

	if err := db.DeleteGroup(ctx, "ops"); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "DeleteGroup twice", db.DeleteGroup(ctx, "ops"), store.ErrNotFound)
	if got, err := db.GroupsOf(ctx, "ann"); err != nil || !slices.Equal(got, []auth.GroupID{"devs"}) {
		t.Errorf("GroupsOf(ann) = %v, %v", got, err)
	}
	if got, err := db.Grants(ctx, access.Subject{}); err != nil || !slices.Equal(grantIDs(got), []int64{devs.ID, ann.ID}) {
		t.Errorf("Grants = %v, %v", grantIDs(got), err)
	}
	if gs, err := db.Groups(ctx); err != nil || len(gs) != 1 || gs[0].ID != "devs" {
		t.Errorf("Groups = %+v, %v", gs, err)
	}
	MustAddGroup(t, db, "ops")
	if got, err := db.Members(ctx, "ops"); err != nil || got != nil {
		t.Errorf("Members(new ops) = %v, %v", got, err)
	}
	if got, err := db.GrantsFor(ctx, "", []auth.GroupID{"ops"}); err != nil || got != nil {
		t.Errorf("GrantsFor(new ops) = %v, %v", got, err)
	}
}

func testTokens(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	MustAddUser(t, db, "ann")
	MustAddUser(t, db, "bob")
	MustAddUser(t, db, "cy")

	work, err := auth.NewGrant(auth.PermWork, auth.KindJobType, "invoice-*")
	if err != nil {
		t.Fatal(err)
	}
	restricted := &auth.Restriction{Grants: []auth.Grant{work}}
	s1, t1 := MustMintToken(t, db, 1, "ann", t0, restricted)
	_, t2 := MustMintToken(t, db, 2, "ann", t0.Add(time.Second), &auth.Restriction{}) // allows nothing
	_, t3 := MustMintToken(t, db, 3, "bob", t0.Add(time.Second), nil)
	_, t4 := MustMintToken(t, db, 4, "ann", t0.Add(2*time.Second), nil)

	got, err := db.Token(ctx, t1.ID)
	if err != nil || !reflect.DeepEqual(got, t1) {
		t.Fatalf("Token = %v, %v; want %v", got, err, t1)
	}
	if !reflect.DeepEqual(got.Restriction, restricted) || got.Restriction == restricted {
		t.Errorf("restriction = %+v, want a copy of %+v", got.Restriction, restricted)
	}
	presented, err := auth.ParseToken(s1)
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Verify(presented, t0); err != nil {
		t.Errorf("the stored token does not verify its own string: %v", err)
	}
	if got, err := db.Token(ctx, t2.ID); err != nil || got.Restriction == nil || len(got.Restriction.Grants) != 0 {
		t.Errorf("an empty restriction reads back as %+v, %v; want a restriction allowing nothing", got.Restriction, err)
	}
	if got, err := db.Token(ctx, t3.ID); err != nil || got.Restriction != nil || !got.ExpiresAt.IsZero() {
		t.Errorf("an unrestricted token reads back as %+v, %v", got, err)
	}
	_, err = db.Token(ctx, "nosuchtoken")
	wantErr(t, "Token(nosuchtoken)", err, store.ErrNotFound)

	// Create: the owner must exist, the id be new, the hash and time set.
	_, t5, err := auth.MintToken(seededRand(5), t0.Add(3*time.Second), auth.TokenRequest{Owner: "eve", Name: "x", TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	wantErr(t, "CreateToken of a missing owner", db.CreateToken(ctx, t5), store.ErrNotFound)
	t5.Owner = "cy"
	if err := db.CreateToken(ctx, t5); err != nil {
		t.Fatal(err)
	}
	if got, err := db.Token(ctx, t5.ID); err != nil || !got.ExpiresAt.Equal(t0.Add(time.Hour+3*time.Second)) {
		t.Errorf("expiry reads back as %v, %v", got.ExpiresAt, err)
	}
	wantErr(t, "CreateToken twice", db.CreateToken(ctx, t5), store.ErrConflict)
	noHash := t5
	noHash.ID, noHash.Hash = "other", auth.SecretHash{}
	if err := db.CreateToken(ctx, noHash); err == nil {
		t.Error("CreateToken without a hash succeeded")
	}
	noTime := t5
	noTime.ID, noTime.CreatedAt = "other", time.Time{}
	if err := db.CreateToken(ctx, noTime); err == nil {
		t.Error("CreateToken without a time succeeded")
	}

	ids := func(ts []auth.Token) []auth.TokenID {
		var out []auth.TokenID
		for _, t := range ts {
			out = append(out, t.ID)
		}
		return out
	}
	// Newest first; t2 and t3 share a time and sort by id, descending.
	tie := []auth.TokenID{t2.ID, t3.ID}
	slices.Sort(tie)
	slices.Reverse(tie)
	for _, tt := range []struct {
		owner auth.UserID
		want  []auth.TokenID
		err   error
	}{
		{owner: "ann", want: []auth.TokenID{t4.ID, t2.ID, t1.ID}},
		{owner: "bob", want: []auth.TokenID{t3.ID}},
		{owner: "", want: []auth.TokenID{t5.ID, t4.ID, tie[0], tie[1], t1.ID}},
		{owner: "eve", err: store.ErrNotFound},
	} {
		got, err := db.Tokens(ctx, tt.owner)
		if !slices.Equal(ids(got), tt.want) {
			t.Errorf("Tokens(%q) = %v, want %v", tt.owner, ids(got), tt.want)
		}
		wantErr(t, "Tokens("+string(tt.owner)+")", err, tt.err)
	}
	MustAddUser(t, db, "dee")
	if got, err := db.Tokens(ctx, "dee"); err != nil || got != nil {
		t.Errorf("Tokens of a user without any = %v, %v", got, err)
	}

	// Revoke keeps the first time; the token then fails to verify.
	if err := db.RevokeToken(ctx, t1.ID, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := db.RevokeToken(ctx, t1.ID, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	got, err = db.Token(ctx, t1.ID)
	if err != nil || !got.RevokedAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("RevokedAt = %v, %v", got.RevokedAt, err)
	}
	if err := got.Verify(presented, t0.Add(2*time.Minute)); !errors.Is(err, auth.ErrRevoked) {
		t.Errorf("Verify of a revoked token = %v", err)
	}
	wantErr(t, "RevokeToken(missing)", db.RevokeToken(ctx, "nosuchtoken", t0), store.ErrNotFound)
	if err := db.RevokeToken(ctx, t1.ID, time.Time{}); err == nil {
		t.Error("RevokeToken at the zero time succeeded")
	}

	// Touch moves the last use forward only.
	for _, tt := range []struct {
		at, want time.Time
	}{
		{at: t0.Add(time.Minute), want: t0.Add(time.Minute)},
		{at: t0.Add(time.Hour), want: t0.Add(time.Hour)},
		{at: t0.Add(time.Second), want: t0.Add(time.Hour)}, // late arrival of an earlier request
	} {
		if err := db.TouchToken(ctx, t3.ID, tt.at); err != nil {
			t.Fatal(err)
		}
		if got, err := db.Token(ctx, t3.ID); err != nil || !got.LastUsedAt.Equal(tt.want) {
			t.Errorf("after TouchToken(%v) LastUsedAt = %v, %v; want %v", tt.at, got.LastUsedAt, err, tt.want)
		}
	}
	wantErr(t, "TouchToken(missing)", db.TouchToken(ctx, "nosuchtoken", t0), store.ErrNotFound)
}

// testTokenSecretsStayOut checks that the store keeps a token's hash as 32
// bytes and nothing of its secret, and that no error it returns shows
// either.
func testTokenSecretsStayOut(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	MustAddUser(t, db, "ann")
	s, tok := MustMintToken(t, db, 9, "ann", t0, nil)
	secret := s[strings.LastIndexByte(s, '_')+1:]

	rows, err := db.Query(`SELECT hash FROM tokens WHERE id = ?`, string(tok.ID))
	if err != nil || len(rows) != 1 {
		t.Fatalf("stored hash: %v, %v", rows, err)
	}
	if hash, _ := rows[0][0].([]byte); len(hash) != 32 || !bytes.Equal(hash, tok.Hash[:]) {
		t.Errorf("stored hash is %d bytes, not the token's hash", len(hash))
	}
	// Every value the database holds for the token's row.
	rows, err = db.Query(`SELECT * FROM tokens`)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		for i, v := range row {
			text := fmt.Sprint(v)
			if b, ok := v.([]byte); ok {
				text = string(b)
			}
			if strings.Contains(text, secret) || strings.Contains(text, s) {
				t.Errorf("column %d holds the token's secret", i)
			}
		}
	}
	err = db.CreateToken(ctx, tok)
	if err == nil || strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), string(tok.Hash[:])) {
		t.Errorf("CreateToken twice = %v", err)
	}
}

func testSessions(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	policy := auth.DefaultSessionPolicy()

	// An OIDC user is not stored; their session carries their groups.
	cookie, oidc := MustNewSession(t, db, 1, "oidc|42", t0, "ops", "eu")
	_, builtin := MustNewSession(t, db, 2, "ann", t0.Add(time.Hour))
	got, err := db.Session(ctx, oidc.IDHash)
	if err != nil || !reflect.DeepEqual(got, oidc) {
		t.Fatalf("Session = %v, %v; want %v", got, err, oidc)
	}
	if !slices.Equal(got.Groups, []auth.GroupID{"ops", "eu"}) {
		t.Errorf("Groups = %v", got.Groups)
	}
	if err := got.Check(cookie, t0.Add(time.Minute), policy); err != nil {
		t.Errorf("the stored session does not check against its cookie: %v", err)
	}
	if got, err := db.Session(ctx, builtin.IDHash); err != nil || got.Groups != nil || !reflect.DeepEqual(got, builtin) {
		t.Errorf("Session(builtin) = %v (groups %v), %v", got, got.Groups, err)
	}
	_, err = db.Session(ctx, auth.HashSecret([]byte("nobody")))
	wantErr(t, "Session(missing)", err, store.ErrNotFound)
	wantErr(t, "CreateSession twice", db.CreateSession(ctx, oidc), store.ErrConflict)
	for _, bad := range []auth.Session{
		{User: "ann", CreatedAt: t0, ExpiresAt: t0, LastSeenAt: t0},
		{IDHash: auth.HashSecret([]byte("a")), CreatedAt: t0, ExpiresAt: t0, LastSeenAt: t0},
		{IDHash: auth.HashSecret([]byte("b")), User: "ann", CreatedAt: t0, LastSeenAt: t0},
	} {
		if err := db.CreateSession(ctx, bad); err == nil {
			t.Errorf("CreateSession(%v) succeeded", bad)
		}
	}

	// Touch moves the last use forward only.
	for _, tt := range []struct{ at, want time.Time }{
		{at: t0.Add(10 * time.Minute), want: t0.Add(10 * time.Minute)},
		{at: t0.Add(5 * time.Minute), want: t0.Add(10 * time.Minute)},
	} {
		if err := db.TouchSession(ctx, oidc.IDHash, tt.at); err != nil {
			t.Fatal(err)
		}
		if got, err := db.Session(ctx, oidc.IDHash); err != nil || !got.LastSeenAt.Equal(tt.want) {
			t.Errorf("after TouchSession(%v) LastSeenAt = %v, %v; want %v", tt.at, got.LastSeenAt, err, tt.want)
		}
	}
	wantErr(t, "TouchSession(missing)", db.TouchSession(ctx, auth.HashSecret([]byte("x")), t0), store.ErrNotFound)

	// Expiry: a session is gone at its ExpiresAt, as Check decides.
	for _, tt := range []struct {
		now  time.Time
		want int
		left []auth.SecretHash
	}{
		{now: oidc.ExpiresAt.Add(-1), want: 0, left: []auth.SecretHash{oidc.IDHash, builtin.IDHash}},
		{now: oidc.ExpiresAt, want: 1, left: []auth.SecretHash{builtin.IDHash}},
		{now: oidc.ExpiresAt, want: 0, left: []auth.SecretHash{builtin.IDHash}},
	} {
		n, err := db.DeleteExpiredSessions(ctx, tt.now)
		if err != nil || n != tt.want {
			t.Errorf("DeleteExpiredSessions(%v) = %d, %v; want %d", tt.now, n, err, tt.want)
		}
		for _, h := range tt.left {
			if _, err := db.Session(ctx, h); err != nil {
				t.Errorf("a live session is gone: %v", err)
			}
		}
	}
	if _, err := db.Session(ctx, oidc.IDHash); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("expired session: %v", err)
	}

	if err := db.DeleteSession(ctx, builtin.IDHash); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteSession(ctx, builtin.IDHash); err != nil {
		t.Errorf("DeleteSession of a missing session: %v", err)
	}
	if _, err := db.Session(ctx, builtin.IDHash); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleted session: %v", err)
	}
}
