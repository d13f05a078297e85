// The real Camunda 8 JavaScript SDK (@camunda8/sdk) against gobpm's Zeebe
// gateway over gRPC, unchanged: its settings come from the environment
// (ZEEBE_GRPC_ADDRESS, CAMUNDA_AUTH_STRATEGY, CAMUNDA_OAUTH_TOKEN) as a
// user's worker reads them. It deploys the models named on the command
// line, streams jobs of type c8-charge (StreamActivatedJobs), and prints
// one JSON line per outcome for the Go test to check. It reads the lines
// the Go test answers on standard input (the key of an incident).
import { Camunda8 } from '@camunda8/sdk'
import { createInterface } from 'node:readline'

const answers = createInterface({ input: process.stdin })[Symbol.asyncIterator]()

const out = (ev) => console.log(JSON.stringify(ev))
const c8 = new Camunda8()
const zbc = c8.getZeebeGrpcApiClient()

try {
  for (const f of process.argv.slice(2)) {
    const d = await zbc.deployResource({ processFilename: f })
    out({ ev: 'deployed', key: d.key, processes: d.deployments.map((x) => x.process?.bpmnProcessId) })
  }

  let handled = 0
  let recovered = false
  // Settles once the job that came back after the incident is completed:
  // the script ends only then (process.exit would cut the call off).
  let settleFlaky
  const flakyCompleted = new Promise((resolve) => { settleFlaky = resolve })
  let failedJob = ''
  let lastFailure = Promise.resolve()
  const streamer = await zbc.streamJobs({
    type: 'c8-charge',
    worker: 'node-streamer',
    timeout: 30000,
    taskHandler: async (job) => {
      handled++
      out({ ev: 'job', key: job.key, instance: job.processInstanceKey, currency: job.customHeaders.currency })
      if (job.variables.flaky && !recovered) {
        // Fails with a backoff until its retries run out: an incident.
        // Each failure counts itself in a variable of the task, which
        // the job's next attempt sees.
        failedJob = job.key
        const before = job.variables.failedBefore ?? 0
        out({ ev: 'failing', key: job.key, retries: job.retries, instance: job.processInstanceKey, before })
        // (The SDK's stream worker drops the variables of job.fail, so the
        // failure goes through the client's own FailJob call.)
        lastFailure = zbc.failJob({ jobKey: job.key, errorMessage: 'the card service is down', retries: job.retries - 1, retryBackOff: 200, variables: { failedBefore: before + 1 } })
        await lastFailure
        return job.forward()
      }
      if (job.variables.decline) {
        return job.error({ errorCode: 'DECLINED', errorMessage: 'declined by the node worker' })
      }
      if (job.variables.flaky) {
        const ack = await job.complete({ charged: true, sawFailures: job.variables.failedBefore ?? 0 })
        settleFlaky()
        return ack
      }
      return job.complete({ charged: true })
    },
  })

  // Each instance waits, through CreateProcessInstanceWithResult, for its
  // streamed job to be handled.
  const results = await Promise.all([1, 2, 3].map((n) =>
    zbc.createProcessInstanceWithResult({
      bpmnProcessId: 'c8-pay', variables: { n, decline: n === 3 }, requestTimeout: 20000,
    })))
  for (const r of results) {
    out({ ev: 'result', instance: r.processInstanceKey, charged: r.variables.charged ?? null, n: r.variables.n })
  }

  const quick = await zbc.createProcessInstanceWithResult({ bpmnProcessId: 'c8-quick', variables: { amount: 21 }, fetchVariables: ['total'] })
  out({ ev: 'quick', total: quick.variables.total })

  const waiting = await zbc.createProcessInstance({ bpmnProcessId: 'c8-msg', variables: { orderId: 'o-7' } })
  await zbc.publishMessage({ name: 'c8-paid', correlationKey: 'o-7', variables: { paid: 10 }, timeToLive: 60000 })
  out({ ev: 'published', instance: waiting.processInstanceKey })

  // A message published before its subscription opens is kept for its
  // timeToLive and reaches the instance that starts afterwards; its
  // messageId makes a second publication ALREADY_EXISTS.
  await zbc.publishMessage({ name: 'c8-paid', correlationKey: 'o-8', messageId: 'pay-o-8', variables: { paid: 20 }, timeToLive: 60000 })
  let duplicate = ''
  try {
    await zbc.publishMessage({ name: 'c8-paid', correlationKey: 'o-8', messageId: 'pay-o-8', variables: {}, timeToLive: 60000 })
  } catch (err) {
    duplicate = String(err.code ?? err.message)
  }
  const early = await zbc.createProcessInstanceWithResult({ bpmnProcessId: 'c8-msg', variables: { orderId: 'o-8' }, requestTimeout: 20000 })
  out({ ev: 'early', paid: early.variables.paid, duplicate })

  // A job failing with a backoff down to an incident; the Go test names
  // the incident, and the worker's operator sets the job's retries and
  // resolves the incident, as a Camunda 8 operator does: the job comes
  // back through the stream and completes.
  const flaky = await zbc.createProcessInstance({ bpmnProcessId: 'c8-pay', variables: { n: 4, flaky: true } })
  out({ ev: 'flaky', instance: flaky.processInstanceKey })
  const { value: incidentKey } = await answers.next()
  await lastFailure
  recovered = true
  await zbc.updateJobRetries({ jobKey: failedJob, retries: 1 })
  await zbc.resolveIncident({ incidentKey: incidentKey.trim() })
  await flakyCompleted
  out({ ev: 'resolved', instance: flaky.processInstanceKey })

  streamer.close()
  out({ ev: 'done', handled })
  await zbc.close()
  process.exit(0)
} catch (err) {
  out({ ev: 'error', msg: String(err && err.stack || err) })
  process.exit(1)
}
