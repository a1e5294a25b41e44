// Nodes (administrators): the registered voice nodes without keys; register one (its key shown
// once, on this page, until it changes), rename it or move its room, rotate its key (the new key
// shown once) or revoke it. Keys are never listed: a reload shows none.

import { el, field } from "../dom.js";
import { errorSlot, failureText, secretBox } from "../widgets.js";

const SERVICE = "command-center";
const NODES = "/api/v0/nodes";
const KEPT = "Shown only now: copy these lines into the node's node.toml. voxd keeps only a digest of the key.";

function tomlLines(node) {
  return `node_id = "${node.node_id}"\napi_key = "${node.api_key}"`;
}

function run(ctx, error, work) {
  return async (event) => {
    if (event) event.preventDefault();
    error.show("");
    try {
      await work();
    } catch (failure) {
      error.show(failureText(failure));
    }
  };
}

function nodeRow(ctx, node, households, view) {
  const name = el("input", { name: "name", required: true, value: node.name });
  const room = el("input", { name: "room", required: true, value: node.room });
  const error = errorSlot(name);
  const path = `${NODES}/${encodeURIComponent(node.node_id)}`;
  const save = run(ctx, error, async () => {
    await ctx.api.patch(SERVICE, path, { name: name.value.trim(), room: room.value.trim() });
    ctx.toast(`Node ${name.value.trim()} saved.`);
    await view.reload();
  });
  const rotate = run(ctx, error, async () => {
    if (!window.confirm(`Give ${node.name} a new key? The old one stops working at once.`)) return;
    const rotated = await ctx.api.post(SERVICE, `${path}/rotate`);
    await view.reload();
    view.showKey(`New key of ${rotated.name}`, tomlLines(rotated));
  });
  const revoke = run(ctx, error, async () => {
    if (!window.confirm(`Revoke ${node.name}? Its key stops working at once.`)) return;
    await ctx.api.delete(SERVICE, path);
    ctx.toast(`Node ${node.name} revoked.`);
    await view.reload();
  });
  return el("details", { class: "node", "data-node": node.node_id },
    el("summary", {}, `${node.name} · ${node.room} · ${households.get(node.household_id) || node.household_id}`),
    el("p", { class: "muted" }, el("small", {}, `id ${node.node_id}`)),
    el("form", { onsubmit: save, "aria-label": `Edit node ${node.name}` },
      field("Name", name), field("Room", room), error.slot,
      el("div", { class: "actions" },
        el("button", { type: "submit" }, "Save node"),
        el("button", { type: "button", class: "secondary", onclick: rotate }, "Rotate key"),
        el("button", { type: "button", class: "secondary outline", onclick: revoke }, "Revoke"))));
}

function registerForm(ctx, households, view) {
  const household = el("select", { name: "household_id", required: true },
    households.map((entry) => el("option", { value: entry.household_id }, entry.name)));
  const room = el("input", { name: "room", required: true, placeholder: "kitchen" });
  const name = el("input", { name: "name", required: true, placeholder: "kitchen-pi" });
  const error = errorSlot(name);
  const register = run(ctx, error, async () => {
    const made = await ctx.api.post(SERVICE, `${NODES}/register`,
      { household_id: household.value, room: room.value.trim(), name: name.value.trim() });
    await view.reload();
    view.showKey(`Key of ${made.name}`, tomlLines(made));
  });
  return el("form", { onsubmit: register, "aria-label": "Register a node" },
    el("h2", {}, "Register a node"),
    field("Household", household), field("Room", room), field("Name", name), error.slot,
    el("button", { type: "submit" }, "Register"));
}

export async function render(main, ctx) {
  main.append(el("h1", {}, "Nodes"));
  const shown = el("div", { "aria-live": "polite" });
  const list = el("div");
  const form = el("div");
  main.append(shown, list, form);
  const view = {
    showKey(title, key) {
      shown.replaceChildren(secretBox(title, key, KEPT));
      const output = shown.querySelector("output");
      output.tabIndex = -1;
      output.focus();
    },
    async reload() {
      try {
        const [nodes, households] = await Promise.all([
          ctx.api.get(SERVICE, NODES), ctx.api.get("auth", "/households")]);
        const names = new Map(households.households.map((entry) => [entry.household_id, entry.name]));
        list.replaceChildren(el("h2", {}, `Registered nodes (${nodes.nodes.length})`),
          ...nodes.nodes.map((node) => nodeRow(ctx, node, names, view)));
        form.replaceChildren(registerForm(ctx, households.households, view));
      } catch (error) {
        list.replaceChildren(el("p", { class: "error", role: "alert" }, failureText(error)));
      }
    },
  };
  await view.reload();
}
