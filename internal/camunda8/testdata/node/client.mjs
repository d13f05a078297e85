// The real Camunda 8 clients against gobpm's REST v2 API: the
// @camunda8/orchestration-cluster-api in strict validation mode (it
// refuses any answer that departs from Camunda's schema) and the
// @camunda8/sdk's REST client. Usage: node client.mjs <base URL>. It
// prints one JSON line per step and {"ev":"done"} at the end; any
// failure prints {"ev":"error"} and exits 1. With the environment's
// C8_USER, C8_PASSWORD and C8_TOKEN it authenticates: the orchestration
// cluster client with HTTP Basic (a builtin user), the SDK with a bearer
// token (a gobpm API token).
import createCamundaClient from '@camunda8/orchestration-cluster-api';
import { Camunda8 } from '@camunda8/sdk';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const base = process.argv[2];
const here = path.dirname(fileURLToPath(import.meta.url));
const model = (n) => path.join(here, '..', n);
const say = (o) => console.log(JSON.stringify(o));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const authed = !!process.env.C8_TOKEN;
const client = createCamundaClient({
  config: {
    CAMUNDA_REST_ADDRESS: base,
    CAMUNDA_SDK_VALIDATION: 'strict',
    CAMUNDA_SDK_LOG_LEVEL: 'error',
    ...(authed
      ? { CAMUNDA_AUTH_STRATEGY: 'BASIC', CAMUNDA_BASIC_AUTH_USERNAME: process.env.C8_USER, CAMUNDA_BASIC_AUTH_PASSWORD: process.env.C8_PASSWORD }
      : { CAMUNDA_AUTH_STRATEGY: 'NONE' }),
  },
});
const now = { consistency: { waitUpToMs: 0 } };

function check(cond, what) {
  if (!cond) throw new Error('check failed: ' + what);
}

// until polls fn until it answers truthy (10 s).
async function until(what, fn) {
  const end = Date.now() + 10000;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting for ' + what);
    await sleep(50);
  }
}

async function instanceState(key) {
  const res = await client.searchProcessInstances({ filter: { processInstanceKey: key } }, now);
  return res.items.length === 1 ? res.items[0].state : undefined;
}

async function main() {
  const topo = await client.getTopology();
  check(topo.brokers.length === 1, 'one broker');
  say({ ev: 'topology', clusterSize: topo.clusterSize });

  const dep = await client.deployResourcesFromFiles([model('c8-pay.bpmn'), model('c8-wait.bpmn'), model('c8-quick.bpmn')]);
  const procs = dep.deployments.filter((d) => d.processDefinition).map((d) => d.processDefinition);
  check(procs.length === 3 && /^[0-9]+$/.test(procs[0].processDefinitionKey), 'three processes with numeric keys');
  say({ ev: 'deployed', key: dep.deploymentKey, processes: procs.map((p) => p.processDefinitionId) });

  const quick = await client.createProcessInstance({ processDefinitionId: 'c8-quick', variables: { amount: 4 }, awaitCompletion: true, fetchVariables: ['total'] });
  check(quick.variables.total === 8, 'awaited total 8, got ' + JSON.stringify(quick.variables));
  say({ ev: 'awaited', total: quick.variables.total });

  // A worker: completes, fails with backoff down to an incident, throws a BPMN error.
  const failures = {};
  // What each attempt of the failing job saw of its failures' variables
  // (local variables of its task): 0, 1, then 2 after the resolution.
  const seenBefore = [];
  let activated = 0;
  const worker = client.createJobWorker({
    jobType: 'c8-charge', maxParallelJobs: 5, jobTimeoutMs: 30000, pollTimeoutMs: 1000, pollIntervalMs: 20, workerName: 'node-worker',
    jobHandler: async (job) => {
      activated++;
      check(/^[0-9]+$/.test(job.jobKey), 'numeric job key');
      const mode = job.variables.mode;
      if (mode === 'decline') return job.error({ errorCode: 'DECLINED', errorMessage: 'card declined' });
      if (mode === 'fail') seenBefore.push(job.variables.failedBefore ?? 0);
      if (mode === 'fail' && (failures[job.processInstanceKey] ?? 0) < 2) {
        failures[job.processInstanceKey] = (failures[job.processInstanceKey] ?? 0) + 1;
        return job.fail({ errorMessage: 'gateway down', retries: job.retries - 1, retryBackOff: 100, variables: { failedBefore: failures[job.processInstanceKey] } });
      }
      return job.complete({ variables: { paid: true } });
    },
  });
  const ok = await client.createProcessInstance({ processDefinitionId: 'c8-pay', variables: { mode: 'ok' } });
  const failing = await client.createProcessInstance({ processDefinitionId: 'c8-pay', variables: { mode: 'fail' } });
  const declined = await client.createProcessInstance({ processDefinitionKey: procs[0].processDefinitionKey, variables: { mode: 'decline' } });
  await until('the ok instance to complete', async () => (await instanceState(ok.processInstanceKey)) === 'COMPLETED');
  await until('the declined instance to complete', async () => (await instanceState(declined.processInstanceKey)) === 'COMPLETED');
  say({ ev: 'worked', completed: ok.processInstanceKey, declined: declined.processInstanceKey });
  const incident = await until('an incident', async () => {
    const res = await client.searchIncidents({ filter: { processInstanceKey: failing.processInstanceKey } }, now);
    return (res.items ?? [])[0];
  });
  check(incident.errorType === 'JOB_NO_RETRIES' && incident.errorMessage === 'gateway down', 'a job incident: ' + JSON.stringify(incident));
  say({ ev: 'incident', key: incident.incidentKey, failures: failures[failing.processInstanceKey] });
  await client.resolveIncident({ incidentKey: incident.incidentKey });
  await until('the resolved instance to complete', async () => (await instanceState(failing.processInstanceKey)) === 'COMPLETED');
  check(JSON.stringify(seenBefore) === '[0,1,2]', 'the failures\' variables reached the next attempts: ' + JSON.stringify(seenBefore));
  say({ ev: 'resolved', instance: failing.processInstanceKey });
  await worker.stop();

  // A message to a waiting instance, then its user task.
  const waiting = await client.createProcessInstance({ processDefinitionId: 'c8-wait', variables: { orderId: 'o-1' } });
  const pub = await client.publishMessage({ name: 'c8-paid', correlationKey: 'o-1', timeToLive: 0, variables: { via: 'node' } });
  check(/^[0-9]+$/.test(pub.messageKey), 'a message key');
  const task = await until('the user task', async () => {
    const res = await client.searchUserTasks({ filter: { processInstanceKey: waiting.processInstanceKey } }, now);
    return res.items[0];
  });
  // gobpm assigns a task only to the caller (anyone without authentication).
  const assignee = process.env.C8_USER || 'demo';
  await client.assignUserTask({ userTaskKey: task.userTaskKey, assignee });
  const mine = await client.searchUserTasks({ filter: { assignee } }, now);
  check(mine.items.length === 1, "the assignee's task");
  await client.completeUserTask({ userTaskKey: task.userTaskKey, variables: { approved: true } });
  await until('the waiting instance to complete', async () => (await instanceState(waiting.processInstanceKey)) === 'COMPLETED');
  say({ ev: 'usertask', key: task.userTaskKey });

  // A message published before its subscription opens waits for it (timeToLive).
  await client.publishMessage({ name: 'c8-paid', correlationKey: 'o-early', timeToLive: 60000, messageId: 'early-1', variables: { early: true } });
  const early = await client.createProcessInstance({ processDefinitionId: 'c8-wait', variables: { orderId: 'o-early' } });
  const earlyTask = await until('the buffered message to reach its instance', async () => {
    const res = await client.searchUserTasks({ filter: { processInstanceKey: early.processInstanceKey } }, now);
    return res.items[0];
  });
  say({ ev: 'buffered', task: earlyTask.userTaskKey });

  // Cancellation, a signal, the licence.
  const doomed = await client.createProcessInstance({ processDefinitionId: 'c8-wait', variables: { orderId: 'o-9' } });
  await client.cancelProcessInstance({ processInstanceKey: doomed.processInstanceKey });
  check((await instanceState(doomed.processInstanceKey)) === 'TERMINATED', 'terminated');
  const sig = await client.broadcastSignal({ signalName: 'nothing-waits' });
  check(/^[0-9]+$/.test(sig.signalKey), 'a signal key');
  await client.getLicense();
  say({ ev: 'cancelled', key: doomed.processInstanceKey });

  // The @camunda8/sdk's REST client: topology, a start, a worker.
  const sdk = new Camunda8({
    CAMUNDA_REST_ADDRESS: base, ZEEBE_REST_ADDRESS: base, CAMUNDA_TENANT_ID: '<default>',
    ...(authed ? { CAMUNDA_AUTH_STRATEGY: 'BEARER', CAMUNDA_OAUTH_TOKEN: process.env.C8_TOKEN } : { CAMUNDA_AUTH_STRATEGY: 'NONE' }),
  });
  const rest = sdk.getCamundaRestClient();
  const t2 = await rest.getTopology();
  check(t2.brokers.length === 1, 'sdk topology');
  const sdkInst = await rest.createProcessInstance({ processDefinitionId: 'c8-pay', variables: { mode: 'ok' } });
  const sdkWorker = rest.createJobWorker({
    type: 'c8-charge', maxJobsToActivate: 5, timeout: 30000, worker: 'sdk-worker', pollIntervalMs: 50,
    jobHandler: (job) => job.complete({ sdk: true }),
  });
  await until('the sdk instance to complete', async () => (await instanceState(String(sdkInst.processInstanceKey))) === 'COMPLETED');
  sdkWorker.stop();
  say({ ev: 'sdk', instance: String(sdkInst.processInstanceKey) });
  say({ ev: 'done', activated });
}

main().then(() => process.exit(0), (err) => {
  say({ ev: 'error', msg: String(err && err.stack || err), issues: err && err.issues });
  process.exit(1);
});
