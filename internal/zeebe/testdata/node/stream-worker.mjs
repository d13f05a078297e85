// A job worker written with the real Camunda 8 JavaScript SDK
// (@camunda8/sdk), unchanged: it streams jobs of type c8-charge
// (StreamActivatedJobs) from the gateway ZEEBE_GRPC_ADDRESS names and
// completes each, printing one JSON line per job it received and per
// completion the gateway acknowledged. It runs until it is killed; the
// server may die and come back under it.
import { Camunda8 } from '@camunda8/sdk'

const out = (ev) => console.log(JSON.stringify(ev))
const zbc = new Camunda8().getZeebeGrpcApiClient()
process.on('unhandledRejection', (err) => out({ ev: 'rejection', msg: String(err) }))

await zbc.streamJobs({
  type: 'c8-charge',
  worker: 'node-crash-streamer',
  timeout: 2000,
  taskHandler: async (job) => {
    out({ ev: 'job', key: job.key })
    await new Promise((r) => setTimeout(r, 10))
    const ack = await job.complete({ charged: true })
    out({ ev: 'completed', key: job.key })
    return ack
  },
})
out({ ev: 'streaming' })
