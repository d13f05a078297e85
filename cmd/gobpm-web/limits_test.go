package main

import (
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/runtime"
)

func TestParseConfigLimits(t *testing.T) {
	t.Parallel()
	noEnv := func(string) string { return "" }
	cfg, err := ParseConfig(nil, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Limits.WithDefaults(); !reflect.DeepEqual(got, (engine.Options{}).WithDefaults()) || cfg.TimerStartsPerSecond != runtime.DefaultMaxTimerStartsPerSecond {
		t.Errorf("default limits %+v, %d timer starts per second", got, cfg.TimerStartsPerSecond)
	}
	cfg, err = ParseConfig([]string{"--max-iterations", "1000", "--min-timer-period", "1m", "--timer-starts-per-second", "2"}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Limits.WithDefaults(); got.MaxIterations != 1000 || got.MaxActivations != 6000 || got.MinTimerPeriod != time.Minute || cfg.TimerStartsPerSecond != 2 {
		t.Errorf("limits %+v, %d timer starts per second", got, cfg.TimerStartsPerSecond)
	}
	cfg, _ = ParseConfig([]string{"--min-timer-period", "0"}, noEnv, io.Discard)
	if got := cfg.Limits.ModelLimits(); got.MinTimerPeriod != 0 {
		t.Errorf("--min-timer-period 0 keeps a floor: %+v", got)
	}
}

func TestParseConfigMetricsLabelLimit(t *testing.T) {
	t.Parallel()
	noEnv := func(string) string { return "" }
	for _, tt := range []struct {
		name string
		args []string
		env  string
		want int
		bad  bool
	}{
		{name: "default", want: runtime.DefaultMetricsLabelLimit},
		{name: "flag", args: []string{"--metrics-label-limit", "20"}, want: 20},
		{name: "environment", env: "30", want: 30},
		{name: "zero", args: []string{"--metrics-label-limit", "0"}, bad: true},
		{name: "not a number", env: "many", bad: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			getenv := noEnv
			if tt.env != "" {
				getenv = func(k string) string {
					if k == "GOBPM_METRICS_LABEL_LIMIT" {
						return tt.env
					}
					return ""
				}
			}
			cfg, err := ParseConfig(tt.args, getenv, io.Discard)
			if tt.bad {
				if err == nil {
					t.Errorf("accepted, limit %d", cfg.MetricsLabelLimit)
				}
				return
			}
			if err != nil || cfg.MetricsLabelLimit != tt.want {
				t.Errorf("limit %d, %v; want %d", cfg.MetricsLabelLimit, err, tt.want)
			}
		})
	}
}
