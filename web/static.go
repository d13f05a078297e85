// Package web holds the cockpit's browser side: the templ components and
// view models in web/templates, and the static assets in web/static, which
// this file embeds into the binary.
//
// # Vendored front-end packages
//
// htmx and bpmn-js come from npm (package.json and package-lock.json at the
// repository root). `make vendor` runs `npm ci` and copies the few files the
// cockpit serves into web/static/vendor/, which git ignores; `make build`,
// `make run` and `make test` do so when the folder is missing. A binary
// built without them still works: pages render, and the layout says how to
// fetch the missing files (see VendorReady).
package web

import (
	"embed"
	"io/fs"
)

//go:embed static
var embedded embed.FS

// Vendored files the cockpit needs from npm, relative to Static().
const (
	HTMXFile       = "vendor/htmx.min.js"
	BPMNViewerFile = "vendor/bpmn-navigated-viewer.production.min.js"
	DiagramCSSFile = "vendor/diagram-js.css"
	BPMNJSCSSFile  = "vendor/bpmn-js.css"
	// AutoLayoutFile is npm bpmn-auto-layout bundled by esbuild (make vendor).
	AutoLayoutFile = "vendor/bpmn-auto-layout.min.js"
	// FormViewerFile is npm @bpmn-io/form-js-viewer bundled by esbuild,
	// FormCSSFile its stylesheet (make vendor).
	FormViewerFile = "vendor/form-js-viewer.min.js"
	FormCSSFile    = "vendor/form-js.css"
	// DMNViewerFile is npm dmn-js's navigated viewer bundled by esbuild
	// (make vendor): its production build, unlike the one dmn-js ships.
	DMNViewerFile = "vendor/dmn-navigated-viewer.min.js"
	// BPMNModelerFile is npm bpmn-js's modeler, BPMNFontCSSFile the
	// palette's icon font (make vendor).
	BPMNModelerFile  = "vendor/bpmn-modeler.production.min.js"
	BPMNFontCSSFile  = "vendor/bpmn-font/css/bpmn.css"
	VendorHelpOnMiss = "the cockpit's front-end files are missing: run `make vendor` (npm ci) and rebuild"
)

// Static returns the static assets (cockpit.css, cockpit.js and vendor/…)
// rooted at web/static.
func Static() fs.FS {
	sub, err := fs.Sub(embedded, "static")
	if err != nil {
		panic(err) // the embed pattern guarantees the folder
	}
	return sub
}

// VendorReady reports whether the npm files were present when the binary was
// built; without them the diagram and live refresh do not work.
func VendorReady() bool {
	for _, f := range []string{HTMXFile, BPMNViewerFile, DiagramCSSFile, AutoLayoutFile, FormViewerFile, FormCSSFile, DMNViewerFile, BPMNModelerFile, BPMNFontCSSFile} {
		if _, err := fs.Stat(Static(), f); err != nil {
			return false
		}
	}
	return true
}
