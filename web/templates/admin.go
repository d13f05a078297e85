package templates

import "time"

// Admin sections, to highlight the current one in the admin navigation.
const (
	NavAdmin = "admin"

	AdminUsers  = "users"
	AdminGroups = "groups"
	AdminGrants = "grants"
	AdminTokens = "tokens"
	AdminAudit  = "audit"
)

// AdminLayout is what every admin page shares.
type AdminLayout struct {
	Layout
	// Section is the current admin section (AdminUsers, …).
	Section string
}

// UserItem is a built-in user.
type UserItem struct {
	ID   string
	Name string
	// CanLogIn is false for a user without a password (one who only owns
	// tokens, such as a worker).
	CanLogIn  bool
	Disabled  bool
	CreatedAt time.Time
}

// UsersPage lists the users, a page at a time, with a form to create one.
type UsersPage struct {
	AdminLayout
	Users []UserItem
	// NextURL leads to the next page ("" on the last).
	NextURL string
	// New keeps the create form's content when it was refused (never the
	// password).
	New UserItem
}

// UserPage is one user with their groups, grants and tokens.
type UserPage struct {
	AdminLayout
	User   UserItem
	Groups []string
	Grants []GrantItem
	Tokens []TokenItem
	// Self is true on the page of the person looking at it, who may not
	// disable or delete themselves.
	Self bool
}

// GroupItem is a group.
type GroupItem struct {
	ID        string
	Name      string
	CreatedAt time.Time
}

// GroupsPage lists the groups with a form to create one.
type GroupsPage struct {
	AdminLayout
	Groups []GroupItem
	// New keeps the create form's content when it was refused.
	New GroupItem
}

// GroupPage is one group with its members and grants.
type GroupPage struct {
	AdminLayout
	Group   GroupItem
	Members []string
	Grants  []GrantItem
}

// GrantItem is a role or a single grant given to a user or group.
type GrantItem struct {
	ID          int64
	SubjectKind string
	SubjectID   string
	// Role is the role given, or "" for a single grant described by Grant
	// ("start process order-*").
	Role      string
	Grant     string
	CreatedAt time.Time
	CreatedBy string
}

// GrantForm is the give-a-grant form's content.
type GrantForm struct {
	SubjectKind string
	SubjectID   string
	Role        string
	Permission  string
	Kind        string
	Pattern     string
}

// GrantsPage lists grants, of one subject or all, with a form to give one.
type GrantsPage struct {
	AdminLayout
	// SubjectKind and SubjectID filter the list ("" for every grant).
	SubjectKind string
	SubjectID   string
	Grants      []GrantItem
	Form        GrantForm
	// Roles, Permissions and Kinds are the choices of the form.
	Roles       []string
	Permissions []string
	Kinds       []string
}

// TokenItem is an API token's metadata (never its secret).
type TokenItem struct {
	ID    string
	Owner string
	Name  string
	// Restriction lists what a restricted token may do ("work job-type
	// invoice"); nil for a token with its owner's rights.
	Restriction []string
	CreatedAt   time.Time
	ExpiresAt   time.Time
	LastUsedAt  time.Time
	RevokedAt   time.Time
}

// TokenForm is the mint form's content.
type TokenForm struct {
	Owner string
	Name  string
	// Days is how many days the token lives ("" for until revoked).
	Days string
	// Restriction holds one grant per line ("work job-type invoice").
	Restriction string
}

// TokensPage lists tokens, of one owner or all, with a form to mint one.
type TokensPage struct {
	AdminLayout
	Owner  string
	Tokens []TokenItem
	Form   TokenForm
}

// TokenMintedPage shows a new token's secret, this once.
type TokenMintedPage struct {
	AdminLayout
	Token  TokenItem
	Secret string
}

// AuditFilter is the audit page's query.
type AuditFilter struct {
	Actor    string
	Action   string
	Resource string
	Outcome  string
}

// AuditItem is one entry of the audit trail.
type AuditItem struct {
	Seq        int64
	At         time.Time
	Actor      string
	OnBehalfOf string
	Via        string
	Action     string
	Resource   string
	Outcome    string
	Status     int
	RequestID  string
	Addr       string
}

// AuditPage lists the audit trail, newest first, a page at a time.
type AuditPage struct {
	AdminLayout
	Filter  AuditFilter
	Entries []AuditItem
	// Outcomes are the filter's choices.
	Outcomes []string
	// NewestURL leads back to the newest entries ("" on that page);
	// OlderURL to the next, older page ("" on the last).
	NewestURL string
	OlderURL  string
}
