package httpjson

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// SecretEnvPrefix prefixes the environment variables that hold secrets:
// {{secrets.TOKEN}} reads GOBPM_SECRET_TOKEN.
const SecretEnvPrefix = "GOBPM_SECRET_"

// Secrets resolves the {{secrets.NAME}} placeholders of connector inputs:
// from the environment (SecretEnvPrefix + NAME) first, else from a secrets
// file. It is immutable once made.
type Secrets struct {
	getenv func(string) string
	file   map[string]string
}

// NewSecrets returns secrets read from getenv (nil: none) and file (nil:
// none; ReadSecretsFile makes one).
func NewSecrets(getenv func(string) string, file map[string]string) *Secrets {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return &Secrets{getenv: getenv, file: file}
}

// lookup returns the secret called name.
func (s *Secrets) lookup(name string) (string, bool) {
	if s == nil {
		return "", false
	}
	if v := s.getenv(SecretEnvPrefix + name); v != "" {
		return v, true
	}
	v, ok := s.file[name]
	return v, ok
}

// ReadSecretsFile reads a secrets file: one NAME=value a line (the value
// is the rest of the line, as written, without surrounding quotes), blank
// lines and lines starting with # ignored.
func ReadSecretsFile(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("secrets file: %w", err)
	}
	return ParseSecrets(b)
}

// ParseSecrets parses the contents of a secrets file (see ReadSecretsFile).
// Errors name the line, never its value.
func ParseSecrets(b []byte) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !ok || !secretName.MatchString(name) {
			return nil, fmt.Errorf("secrets file line %d: want NAME=value, NAME made of letters, digits, underscores, dashes and dots", n)
		}
		value = strings.TrimSpace(value)
		if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
			value = value[1 : len(value)-1]
		}
		out[name] = value
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("secrets file: %w", err)
	}
	return out, nil
}

var (
	secretName        = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)
	secretPlaceholder = regexp.MustCompile(`\{\{\s*secrets\.([A-Za-z0-9_.-]+)\s*\}\}`)
)

// resolver replaces placeholders in the inputs of one call and remembers
// the values it put in, so that everything recorded can be masked.
type resolver struct {
	secrets *Secrets
	used    []string
	missing []string
}

// value returns v with the placeholders of every string in it replaced.
func (r *resolver) value(v any) any {
	switch x := v.(type) {
	case string:
		return r.text(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = r.value(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = r.value(e)
		}
		return out
	}
	return v
}

// text replaces the placeholders in s.
func (r *resolver) text(s string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	return secretPlaceholder.ReplaceAllStringFunc(s, func(m string) string {
		name := secretPlaceholder.FindStringSubmatch(m)[1]
		v, ok := r.secrets.lookup(name)
		if !ok {
			r.missing = append(r.missing, name)
			return m
		}
		if v != "" {
			r.used = append(r.used, v)
		}
		return v
	})
}

// masker hides secret values in what is recorded about a call.
type masker []string

// mask returns s with every secret value replaced by ***.
func (m masker) mask(s string) string {
	for _, v := range m {
		s = strings.ReplaceAll(s, v, "***")
	}
	return s
}

// value masks every string in v (a JSON-shaped value), keys included.
func (m masker) value(v any) any {
	if len(m) == 0 {
		return v
	}
	switch x := v.(type) {
	case string:
		return m.mask(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[m.mask(k)] = m.value(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = m.value(e)
		}
		return out
	}
	return v
}

// Expand replaces the {{secrets.NAME}} placeholders in text, as a call's
// inputs are resolved. It returns the secret values it put in (to mask
// them in whatever is recorded) and an error naming, never showing, the
// secrets that are not set.
func (s *Secrets) Expand(text string) (string, []string, error) {
	r := resolver{secrets: s}
	out := r.text(text)
	if len(r.missing) > 0 {
		return "", nil, fmt.Errorf("secret %s is not set", strings.Join(r.missing, ", "))
	}
	return out, r.used, nil
}

// Mask returns v, a JSON-shaped value, with every one of values (secret
// values Expand put in, or other credentials) replaced by *** in its
// strings and keys, as the connector masks what it records. It reads
// nothing of s: it is a method so that one interface offers both.
func (s *Secrets) Mask(values []string, v any) any {
	var m masker
	for _, s := range values {
		if s != "" {
			m = append(m, s)
		}
	}
	return m.value(v)
}
