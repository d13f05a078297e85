// Entry of vendor/dmn-navigated-viewer.min.js, bundled by `make vendor`
// with esbuild: npm dmn-js's navigated viewer (decision tables, literal
// expressions, the requirements diagram) as one classic script. dmn-js's
// own dist build carries Inferno's development build, which logs a console
// error on every decision page; esbuild's minified bundle is the
// production build (process.env.NODE_ENV is "production").
import NavigatedViewer from 'dmn-js/lib/NavigatedViewer';

window.DmnJS = NavigatedViewer;
