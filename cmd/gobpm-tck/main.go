// Command gobpm-tck runs the DMN Technology Compatibility Kit against
// gobpm's DMN engine (internal/dmn).
//
//	go run ./cmd/gobpm-tck [-v] [-o FILE] DIR
//
// It walks DIR (a TCK checkout's TestCases/compliance-level-3, say), runs
// every folder holding .dmn models and TCK test case files
// (*-test-NN.xml), prints a line per failed test case and ends with
// "N passed, M failed". With -v it also prints each folder's counts. It
// writes no file unless -o names one: the results in the TCK's
// tck_results.csv format.
//
// The comparison is strict: values by type and value (numbers within
// 1e-8, as the TCK's runners compare them; dates, times and durations by
// value and type, never by text), and a result node with
// errorResult="true" passes only when the evaluation reported an error.
//
// The exit status is 1 when a test case failed, 2 on a usage or I/O
// error.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gobpm/gobpm/internal/dmn/tck"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gobpm-tck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the results in the TCK's tck_results.csv format to `FILE`")
	verbose := fs.Bool("v", false, "print the passed and failed counts of every folder")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gobpm-tck [-v] [-o FILE] DIR")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	rep, err := tck.RunDir(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "gobpm-tck:", err)
		return 2
	}
	if *out != "" {
		if err := writeCSV(*out, rep); err != nil {
			fmt.Fprintln(stderr, "gobpm-tck:", err)
			return 2
		}
	}
	w := bufio.NewWriter(stdout)
	for _, c := range rep.Cases {
		if c.Status != tck.Success {
			fmt.Fprintf(w, "FAIL %s/%s/%s: %s\n", c.Folder, c.File, c.ID, c.Detail)
		}
	}
	if *verbose {
		for _, f := range rep.Folders() {
			fmt.Fprintf(w, "%-60s %4d passed, %4d failed\n", f.Folder, f.Passed, f.Failed)
		}
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", rep.Passed(), rep.Failed())
	if err := w.Flush(); err != nil {
		return 2
	}
	if rep.Failed() > 0 {
		return 1
	}
	return 0
}

func writeCSV(path string, rep *tck.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := rep.WriteCSV(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
