// Entry of vendor/bpmn-auto-layout.min.js, bundled by `make vendor` with
// esbuild: the npm package bpmn-auto-layout (an ES module importing
// bpmn-moddle) as one classic script, since the cockpit's
// Content-Security-Policy allows no inline import map. cockpit.js lays out
// a model without diagram interchange (BPMNDI) with it before drawing.
import { layoutProcess } from 'bpmn-auto-layout';
import { BpmnModdle } from 'bpmn-moddle';

// withFlowRefs fills every flow node's incoming and outgoing from the
// sequence flows: the layout follows those references, which a model
// written by hand (or by a tool other than the Camunda Modeler) may leave
// out, and would otherwise stack the elements unconnected.
async function withFlowRefs(xml) {
  const moddle = new BpmnModdle();
  const { rootElement } = await moddle.fromXML(xml);
  const add = (el, prop, flow) => {
    const list = el.get(prop);
    if (!list.includes(flow)) list.push(flow);
  };
  const visit = (container) => {
    (container.flowElements || []).forEach((e) => {
      if (e.$type === 'bpmn:SequenceFlow' && e.sourceRef && e.targetRef) {
        add(e.sourceRef, 'outgoing', e);
        add(e.targetRef, 'incoming', e);
      }
      if (e.flowElements) visit(e);
    });
  };
  (rootElement.rootElements || []).forEach((r) => {
    if (r.$type === 'bpmn:Process') visit(r);
  });
  const { xml: out } = await moddle.toXML(rootElement);
  return out;
}

window.gobpmLayoutProcess = async (xml) => layoutProcess(await withFlowRefs(xml));
