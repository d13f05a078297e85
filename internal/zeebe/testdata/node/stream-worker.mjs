// A job worker written with the real Camunda 8 JavaScript SDK
// (@camunda8/sdk), unchanged: it streams jobs of type c8-charge
// (StreamActivatedJobs) from the gateway ZEEBE_GRPC_ADDRESS names and
// completes each, printing one JSON line per job it received and per
// completion the gateway acknowledged. It runs until it is killed; the
// server may die and come back under it.
//
// While the file HOLD_FILE names exists, a job it receives is held: it
// prints {"ev":"held"} and completes the job only once the file is gone,
// so a test can kill the server while jobs are in flight (activated and
// not yet completed) and let their completions reach the restarted one.
import { existsSync } from 'node:fs'
import { Camunda8 } from '@camunda8/sdk'

const out = (ev) => console.log(JSON.stringify(ev))
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const hold = process.env.HOLD_FILE ?? ''
const zbc = new Camunda8().getZeebeGrpcApiClient()
process.on('unhandledRejection', (err) => out({ ev: 'rejection', msg: String(err) }))

await zbc.streamJobs({
  type: 'c8-charge',
  worker: 'node-crash-streamer',
  timeout: 2000,
  taskHandler: async (job) => {
    out({ ev: 'job', key: job.key })
    if (hold && existsSync(hold)) {
      out({ ev: 'held', key: job.key })
      while (existsSync(hold)) await sleep(20)
    }
    await sleep(10)
    const ack = await job.complete({ charged: true })
    out({ ev: 'completed', key: job.key })
    return ack
  },
})
out({ ev: 'streaming' })
