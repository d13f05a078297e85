// The real Camunda 8 JavaScript SDK (@camunda8/sdk) against gobpm's Zeebe
// gateway over gRPC, unchanged: its settings come from the environment
// (ZEEBE_GRPC_ADDRESS, CAMUNDA_AUTH_STRATEGY, CAMUNDA_OAUTH_TOKEN) as a
// user's worker reads them. It deploys the models named on the command
// line, streams jobs of type c8-charge (StreamActivatedJobs), and prints
// one JSON line per outcome for the Go test to check.
import { Camunda8 } from '@camunda8/sdk'

const out = (ev) => console.log(JSON.stringify(ev))
const c8 = new Camunda8()
const zbc = c8.getZeebeGrpcApiClient()

try {
  for (const f of process.argv.slice(2)) {
    const d = await zbc.deployResource({ processFilename: f })
    out({ ev: 'deployed', key: d.key, processes: d.deployments.map((x) => x.process?.bpmnProcessId) })
  }

  let handled = 0
  const streamer = await zbc.streamJobs({
    type: 'c8-charge',
    worker: 'node-streamer',
    timeout: 30000,
    taskHandler: async (job) => {
      handled++
      out({ ev: 'job', key: job.key, instance: job.processInstanceKey, currency: job.customHeaders.currency })
      if (job.variables.decline) {
        return job.error({ errorCode: 'DECLINED', errorMessage: 'declined by the node worker' })
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

  streamer.close()
  out({ ev: 'done', handled })
  await zbc.close()
  process.exit(0)
} catch (err) {
  out({ ev: 'error', msg: String(err && err.stack || err) })
  process.exit(1)
}
