// Command gobpm-tck runs the DMN Technology Compatibility Kit against
// gobpm's DMN engine (internal/dmn).
//
//	go run ./cmd/gobpm-tck [-out FILE] DIR
//
// It walks DIR, runs every folder holding a .dmn model and TCK test case
// files (*-test-NN.xml), writes the results in the TCK's tck_results.csv
// format (to DIR's parent, or to -out), prints a line per failed test case
// and ends with "N passed, M failed". The exit status is 1 when a test
// case failed, 2 on a usage or I/O error.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gobpm/gobpm/internal/dmn/tck"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gobpm-tck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "where to write tck_results.csv (default: DIR's parent directory)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gobpm-tck [-out FILE] DIR")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	dir := fs.Arg(0)
	rep, err := tck.RunDir(dir)
	if err != nil {
		fmt.Fprintln(stderr, "gobpm-tck:", err)
		return 2
	}
	path := *out
	if path == "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			fmt.Fprintln(stderr, "gobpm-tck:", err)
			return 2
		}
		path = filepath.Join(filepath.Dir(abs), "tck_results.csv")
	}
	if err := writeCSV(path, rep); err != nil {
		fmt.Fprintln(stderr, "gobpm-tck:", err)
		return 2
	}
	w := bufio.NewWriter(stdout)
	for _, c := range rep.Cases {
		if c.Status != tck.Success {
			fmt.Fprintf(w, "FAIL %s/%s/%s: %s\n", c.Folder, c.File, c.ID, c.Detail)
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
