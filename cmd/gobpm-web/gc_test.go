package main

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

func TestChooseGC(t *testing.T) {
	t.Parallel()
	const meminfo = "MemTotal:       24576000 kB\nMemFree:        1000 kB\n"
	files := func(m map[string]string) func(string) ([]byte, error) {
		return func(name string) ([]byte, error) {
			if s, ok := m[name]; ok {
				return []byte(s), nil
			}
			return nil, fs.ErrNotExist
		}
	}
	env := func(m map[string]string) func(string) string {
		return func(k string) string { return m[k] }
	}
	machine := int64(24576000) * 1024
	tests := []struct {
		name  string
		env   map[string]string
		files map[string]string
		want  gcSettings
	}{
		{"machine memory", nil, map[string]string{"/proc/meminfo": meminfo},
			gcSettings{Percent: defaultGCPercent, Limit: machine / 4 * 3}},
		{"cgroup limit below the machine", nil, map[string]string{"/proc/meminfo": meminfo, "/sys/fs/cgroup/memory.max": "2147483648\n"},
			gcSettings{Percent: defaultGCPercent, Limit: 2147483648 / 4 * 3}},
		{"cgroup without a limit", nil, map[string]string{"/proc/meminfo": meminfo, "/sys/fs/cgroup/memory.max": "max\n"},
			gcSettings{Percent: defaultGCPercent, Limit: machine / 4 * 3}},
		{"nothing readable", nil, nil, gcSettings{Percent: defaultGCPercent}},
		{"malformed meminfo", nil, map[string]string{"/proc/meminfo": "MemTotal: lots\n"}, gcSettings{Percent: defaultGCPercent}},
		{"GOGC set", map[string]string{"GOGC": "100"}, map[string]string{"/proc/meminfo": meminfo},
			gcSettings{Limit: machine / 4 * 3}},
		{"GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "1GiB"}, map[string]string{"/proc/meminfo": meminfo},
			gcSettings{Percent: defaultGCPercent}},
		{"both set", map[string]string{"GOGC": "off", "GOMEMLIMIT": "1GiB"}, map[string]string{"/proc/meminfo": meminfo},
			gcSettings{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := chooseGC(env(tt.env), files(tt.files)); got != tt.want {
				t.Errorf("chooseGC = %+v, want %+v", got, tt.want)
			}
		})
	}
	if got := availableMemory(func(string) ([]byte, error) { return nil, errors.New("no") }); got != 0 {
		t.Errorf("availableMemory without files = %d", got)
	}
}

// TestServerTunesGC: the real server runs with GOGC 400 and a memory limit
// unless its environment sets them, and says so in /metrics.
func TestServerTunesGC(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	bin := buildBinary(t)
	for _, tt := range []struct {
		name      string
		env       []string
		wantGOGC  string
		wantLimit func(string) bool
	}{
		{"defaults", []string{"GOGC=", "GOMEMLIMIT="}, "400", func(v string) bool { return v != "9223372036854775807" }},
		{"environment wins", []string{"GOGC=150", "GOMEMLIMIT=1GiB"}, "150", func(v string) bool { return v == "1073741824" }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := startServerEnv(t, bin, filepath.Join(t.TempDir(), "gc.db"), tt.env)
			res, err := http.Get(s.base + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, line := range strings.Split(string(body), "\n") {
				if f := strings.Fields(line); len(f) == 2 && strings.HasPrefix(f[0], "go_gc_") {
					got[f[0]] = f[1]
				}
			}
			if got["go_gc_gogc_percent"] != tt.wantGOGC {
				t.Errorf("go_gc_gogc_percent = %q, want %s", got["go_gc_gogc_percent"], tt.wantGOGC)
			}
			if !tt.wantLimit(got["go_gc_gomemlimit_bytes"]) {
				t.Errorf("go_gc_gomemlimit_bytes = %q", got["go_gc_gomemlimit_bytes"])
			}
		})
	}
}
