// The real camunda-external-task-client-js against gobpm's /engine-rest,
// driven by internal/camunda7/node_test.go. Usage:
//   node worker.mjs <engine-rest base URL> <user> <password>
// It prints one JSON event per line on stdout and stops when stdin closes.
// Each instance's "mode" variable says what the charge handler does.
import { Client, Variables, BasicAuthInterceptor } from "camunda-external-task-client-js";

const [baseUrl, username, password] = process.argv.slice(2);
const emit = (ev) => process.stdout.write(JSON.stringify(ev) + "\n");
const interceptors = new BasicAuthInterceptor({ username, password });
const quiet = { use: () => {} };

const unlocked = new Set(); // tasks this script unlocked once

function client(workerId, asyncResponseTimeout) {
  const c = new Client({ baseUrl, workerId, asyncResponseTimeout, interval: 50, maxTasks: 5, lockDuration: 60000, interceptors, ...quiet });
  c.on("poll:error", (e) => emit({ ev: "error", worker: workerId, msg: String(e && e.message) }));
  c.on("handler:error", (e) => emit({ ev: "error", worker: workerId, msg: String(e && e.message) }));
  return c;
}

function handled(workerId, task, action, extra = {}) {
  emit({ ev: "handled", worker: workerId, topic: task.topicName, task: task.id, instance: task.processInstanceId,
    retries: task.retries, action, ...extra });
}

async function charge(workerId, { task, taskService }) {
  const mode = task.variables.get("mode");
  switch (mode) {
    case "typed": {
      const typed = task.variables.getAllTyped();
      const types = {};
      for (const [name, tv] of Object.entries(typed)) types[name] = tv.type;
      emit({ ev: "typed", instance: task.processInstanceId, types, customer: task.variables.get("customer"),
        amount: task.variables.get("amount"), lockExpirationTime: task.lockExpirationTime });
      await taskService.extendLock(task, 120000);
      const out = new Variables();
      out.set("txn", "t-1");
      out.set("qty", 7);
      out.setTyped("big", { type: "Long", value: 1234567890123, valueInfo: {} });
      out.set("rate", 0.25);
      out.set("paid", true);
      out.set("at", new Date(Date.UTC(2026, 0, 2, 3, 4, 5)));
      out.set("receipt", { lines: [1, 2] });
      out.set("note", null);
      await taskService.complete(task, out);
      handled(workerId, task, "complete");
      return;
    }
    case "fail": {
      const retries = (task.retries ?? 3) - 1;
      await taskService.handleFailure(task, { errorMessage: "card service down", errorDetails: "Error: card service down\n  at charge", retries, retryTimeout: 10 });
      handled(workerId, task, "fail", { left: retries });
      return;
    }
    case "decline": {
      const vars = new Variables();
      vars.set("reason", "funds");
      await taskService.handleBpmnError(task, "CARD_DECLINED", "no funds", vars);
      handled(workerId, task, "bpmnError");
      return;
    }
    case "unlock":
      if (!unlocked.has(task.id)) {
        unlocked.add(task.id);
        await taskService.unlock(task);
        handled(workerId, task, "unlock");
        return;
      }
  }
  const vars = new Variables();
  vars.set("charged", true);
  await taskService.complete(task, vars);
  handled(workerId, task, "complete");
}

async function ship(workerId, { task, taskService }) {
  const vars = new Variables();
  vars.set("shipped", true);
  await taskService.complete(task, vars);
  handled(workerId, task, "complete");
}

const clients = [];
for (const workerId of ["node-1", "node-3"]) {
  const c = client(workerId, 5000); // one long poll serves both topics
  c.subscribe("charge", (args) => charge(workerId, args));
  c.subscribe("ship", (args) => ship(workerId, args));
  clients.push(c);
}
const reporter = client("node-2", 60000);
reporter.subscribe("report", async ({ task, taskService }) => {
  await taskService.complete(task);
  handled("node-2", task, "complete");
});
clients.push(reporter);
emit({ ev: "ready" });

process.stdin.resume();
process.stdin.on("end", () => {
  for (const c of clients) c.stop();
  process.exit(0);
});
