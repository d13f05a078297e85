package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc CPU times (100 on Linux).
const clockTicks = 100

// CPUUse is the CPU time spent during a scenario, in core-seconds: by the
// server (when spawned), by this tool, and by everything else on the
// machine. On a shared machine Other shows how noisy the figures are. Linux
// only (read from /proc); zero elsewhere.
type CPUUse struct {
	WallS   float64 `json:"wallSeconds"`
	ServerS float64 `json:"serverSeconds"`
	ToolS   float64 `json:"toolSeconds"`
	OtherS  float64 `json:"otherSeconds"`
}

// cpuSnap is a reading of the CPU counters.
type cpuSnap struct {
	at                   time.Time
	pid                  int
	server, tool, busy   float64
	serverOK, toolOK, ok bool
}

// procCPU returns the user+system seconds of a process from /proc/<pid>/stat.
func procCPU(pid string) (float64, bool) {
	data, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, false
	}
	// Fields after the command name (which may hold spaces) in parentheses.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseFloat(f[11], 64) // utime, field 14
	k, err2 := strconv.ParseFloat(f[12], 64) // stime, field 15
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return (u + k) / clockTicks, true
}

// busyCPU returns the machine's busy seconds (all cores) from /proc/stat.
func busyCPU() (float64, bool) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return 0, false
	}
	var busy float64
	for i, v := range f[1:] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		if i >= 7 { // guest times are already in user
			break
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, false
		}
		busy += x
	}
	return busy / clockTicks, true
}

func readCPU(srv *Server) cpuSnap {
	s := cpuSnap{at: time.Now()}
	s.tool, s.toolOK = procCPU("self")
	if s.pid = srv.pid(); s.pid > 0 {
		s.server, s.serverOK = procCPU(strconv.Itoa(s.pid))
	}
	s.busy, s.ok = busyCPU()
	return s
}

// since returns the use between s and now; a server restarted in between
// (bytes, list) is not counted.
func (s cpuSnap) since(srv *Server) *CPUUse {
	now := readCPU(srv)
	if !s.ok || !now.ok || !s.toolOK || !now.toolOK {
		return nil
	}
	u := &CPUUse{WallS: now.at.Sub(s.at).Seconds(), ToolS: now.tool - s.tool}
	if s.serverOK && now.serverOK && s.pid == now.pid {
		u.ServerS = now.server - s.server
	}
	u.OtherS = max(0, now.busy-s.busy-u.ToolS-u.ServerS)
	return u
}

// String renders the use for the report.
func (u *CPUUse) String() string {
	if u == nil {
		return ""
	}
	srv := "not measured (external or restarted)"
	if u.ServerS > 0 {
		srv = fmt.Sprintf("%.1f s", u.ServerS)
	}
	return fmt.Sprintf("CPU over %.0f s wall: server %s, gobpm-load %.1f s, other processes %.1f s (core-seconds)", u.WallS, srv, u.ToolS, u.OtherS)
}
