package main

import (
	"bufio"
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// The garbage collector's settings of the server. A step allocates what it
// touches and frees it when it answers, so the live heap stays small while
// the allocation rate is high: with Go's default (GOGC=100) the collector
// runs several times a second under load and takes a fifth of the CPU. The
// server therefore lets the heap grow to five times the live data
// (defaultGCPercent) and bounds it by a soft memory limit of three quarters
// of the machine's (or its cgroup's) memory, so a large live heap (big
// instances in the cache) makes the collector work harder instead of
// exhausting memory. GOGC and GOMEMLIMIT, when set, win.
const (
	// defaultGCPercent is the server's GOGC unless the environment sets one.
	defaultGCPercent = 400
	// memoryLimitShare is the share of the available memory the soft
	// limit allows, in quarters.
	memoryLimitShare = 3
)

// gcSettings are the collector settings tuneGC applies.
type gcSettings struct {
	// Percent is the GOGC to set; 0 leaves the runtime's.
	Percent int
	// Limit is the soft memory limit in bytes; 0 leaves the runtime's.
	Limit int64
}

// chooseGC decides the collector settings from the environment and the
// files that tell the memory available (readFile reads /proc/meminfo and
// the cgroup's memory.max).
func chooseGC(getenv func(string) string, readFile func(string) ([]byte, error)) gcSettings {
	var s gcSettings
	if getenv("GOGC") == "" {
		s.Percent = defaultGCPercent
	}
	if getenv("GOMEMLIMIT") == "" {
		if avail := availableMemory(readFile); avail > 0 {
			s.Limit = avail / 4 * memoryLimitShare
		}
	}
	return s
}

// availableMemory is the smaller of the machine's memory (MemTotal of
// /proc/meminfo) and the limit of the process's cgroup (v2 memory.max), in
// bytes; 0 when neither can be read (not Linux).
func availableMemory(readFile func(string) ([]byte, error)) int64 {
	var total int64
	if b, err := readFile("/proc/meminfo"); err == nil {
		total = memTotal(b)
	}
	if b, err := readFile("/sys/fs/cgroup/memory.max"); err == nil {
		v := strings.TrimSpace(string(b))
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 && (total == 0 || n < total) {
			total = n
		}
	}
	return total
}

// memTotal reads MemTotal (kB) from the text of /proc/meminfo, in bytes.
func memTotal(meminfo []byte) int64 {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb <= 0 {
			return 0
		}
		return kb * 1024
	}
	return 0
}

// tuneGC applies chooseGC's settings to this process and logs them.
func tuneGC(log *slog.Logger) {
	s := chooseGC(os.Getenv, os.ReadFile)
	if s.Percent > 0 {
		debug.SetGCPercent(s.Percent)
	}
	if s.Limit > 0 {
		debug.SetMemoryLimit(s.Limit)
	}
	if s.Percent > 0 || s.Limit > 0 {
		log.Info("garbage collector tuned (GOGC and GOMEMLIMIT override)",
			"gogc", describe(s.Percent), "memory_limit_mib", describe(int(s.Limit>>20)))
	}
}

// describe is n, or "unchanged" for 0.
func describe(n int) string {
	if n == 0 {
		return "unchanged"
	}
	return fmt.Sprint(n)
}
