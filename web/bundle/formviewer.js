// Entry of vendor/form-js-viewer.min.js, bundled by `make vendor` with
// esbuild: the npm package @bpmn-io/form-js-viewer (an ES module) as one
// classic script. cockpit.js renders a user task's Camunda Form with it
// (the .form JSON deployed with the process, or one the cockpit generates
// from the task's variables).
import { Form } from '@bpmn-io/form-js-viewer';

window.GobpmForm = Form;
