// Recipes: the household's list and search, an import from a web page or a photo, and one recipe
// scaled to N servings (#/recipes?id=ID&servings=N). docs/recipes.md says what each route does.
import { el, failure, field, hashQuery, problem } from "../dom.js";

const SERVICE = "recipes";
const RECIPES = "/api/v0/recipes";
const IMPORT_WAIT = "This can take up to two minutes while the page is fetched and read.";

// What an import's refusal means to a cook, by the service's error code (docs/recipes.md, Errors).
const IMPORT_ERRORS = {
  url_not_allowed: "voxd may not fetch that address (only public http(s) pages).",
  invalid_url: "That is not a web address voxd can fetch.",
  fetch_failed: "The page could not be fetched: check the address.",
  fetch_timeout: "The page took too long to answer.",
  too_many_redirects: "The page redirected too many times.",
  no_recipe_found: "No recipe could be read from it.",
  page_too_complex: "The page was too big or complex to read.",
  too_many_imports: "Other imports are still running: try again in a moment.",
  extract_unavailable: "The web extraction service is down, so pages cannot be imported now.",
  ocr_unavailable: "The OCR service is down, so photos cannot be imported now.",
  unsupported_image: "That file is not a PNG, JPEG or WebP photo.",
  body_too_large: "That file is too large.",
};

export async function render(main, ctx) {
  const { id, servings } = hashQuery();
  if (id) return renderRecipe(main, ctx, id, servings);
  return renderList(main, ctx);
}

async function renderList(main, ctx) {
  const results = el("div", { id: "recipe-results", "aria-live": "polite" });
  const search = el("input", { type: "search", name: "q", id: "recipe-search", autocomplete: "off" });
  const form = el("form", { role: "search", onsubmit: (event) => {
    event.preventDefault();
    showResults(ctx, results, search.value.trim());
  } }, field("Search recipes", search), el("button", { type: "submit" }, "Search"));
  main.replaceChildren(el("h1", {}, "Recipes"), importPanel(ctx), form, results);
  await showResults(ctx, results, "");
}

async function showResults(ctx, results, q, cursor = null, append = false) {
  let page;
  try {
    page = await ctx.api.get(SERVICE, RECIPES, { ...(q ? { q } : {}), ...(cursor ? { cursor } : {}), limit: 50 });
  } catch (error) {
    results.replaceChildren(failure(error, "p", "Recipes could not be loaded: "));
    return;
  }
  const list = append ? results.querySelector("ul") : el("ul", { class: "recipe-list" });
  for (const recipe of page.recipes) list.append(recipeRow(recipe));
  const children = [list];
  if (!page.recipes.length && !append) children.splice(0, 1, el("p", {}, q ? `No recipe matches “${q}”.` : "No recipes yet: import one above."));
  if (page.next_cursor) {
    children.push(el("button", { type: "button", onclick: () => showResults(ctx, results, q, page.next_cursor, true) }, "More"));
  }
  results.replaceChildren(...children);
}

function recipeRow(recipe) {
  const facts = [recipe.servings ? `serves ${recipe.servings}` : null,
    recipe.total_time_minutes ? `${recipe.total_time_minutes} min` : null, ...(recipe.tags || [])].filter(Boolean);
  return el("li", {}, el("a", { href: `#/recipes?id=${encodeURIComponent(recipe.id)}` }, recipe.title),
    facts.length ? el("small", {}, " · ", facts.join(" · ")) : null);
}

function importPanel(ctx) {
  const status = el("div", { id: "import-status", "aria-live": "polite" });
  const url = el("input", { type: "url", name: "url", id: "import-url", required: true, placeholder: "https://…" });
  const photo = el("input", { type: "file", name: "photo", id: "import-photo", accept: "image/png,image/jpeg,image/webp" });
  const byUrl = el("form", { onsubmit: (event) => {
    event.preventDefault();
    runImport(ctx, status, byUrl, () => ctx.api.post(SERVICE, `${RECIPES}/import-url`, { url: url.value.trim() }));
  } }, field("Import from a web page", url), el("button", { type: "submit" }, "Import page"));
  const byPhoto = el("form", { onsubmit: (event) => {
    event.preventDefault();
    const file = photo.files[0];
    if (!file) return showImportError(status, { message: "Choose a photo first." });
    runImport(ctx, status, byPhoto, () => ctx.api.post(SERVICE, `${RECIPES}/import-image`, file));
  } }, field("Import from a photo", photo), el("button", { type: "submit" }, "Import photo"));
  return el("section", { class: "import", "aria-labelledby": "import-heading" },
    el("h2", { id: "import-heading" }, "Import a recipe"), byUrl, byPhoto, status);
}

async function runImport(ctx, status, form, call) {
  const button = form.querySelector("button");
  button.disabled = true;
  status.replaceChildren(el("progress", { "aria-label": "Importing" }), el("p", {}, "Importing… ", IMPORT_WAIT));
  try {
    const recipe = await call();
    status.replaceChildren(el("p", { class: "ok" }, "Imported ",
      el("a", { href: `#/recipes?id=${encodeURIComponent(recipe.id)}`, id: "imported-link" }, recipe.title), "."));
    ctx.toast(`Imported ${recipe.title}`);
  } catch (error) {
    showImportError(status, error);
  } finally {
    button.disabled = false;
  }
}

function showImportError(status, error) {
  const known = IMPORT_ERRORS[error.code];
  const parts = [el("strong", {}, "Not imported. "), known || problem(error)];
  if (known && error.message) parts.push(el("small", {}, ` (${error.message})`));
  const duplicate = error.code === "duplicate_recipe" && error.details && error.details.recipe_id;
  if (duplicate) {
    parts.splice(1, 1, "This page is already imported: ",
      el("a", { href: `#/recipes?id=${encodeURIComponent(duplicate)}` }, "open it"), ".");
  }
  status.replaceChildren(el("p", { class: "error", role: "alert" }, ...parts));
}

async function renderRecipe(main, ctx, id, servings) {
  main.replaceChildren(el("p", { "aria-busy": "true" }, "Loading…"));
  let recipe;
  try {
    recipe = await ctx.api.get(SERVICE, `${RECIPES}/${encodeURIComponent(id)}`, servings ? { servings } : {});
  } catch (error) {
    main.replaceChildren(failure(error, "p"), backLink());
    return;
  }
  main.replaceChildren(backLink(), el("article", { class: "recipe" },
    el("h1", {}, recipe.title), recipe.description ? el("p", {}, recipe.description) : null,
    timesLine(recipe), scaleForm(recipe), scalingNote(recipe),
    el("h2", {}, "Ingredients"), ingredientList(recipe.ingredients),
    el("h2", {}, "Method"), stepList(recipe),
    recipe.source_url ? el("p", {}, el("a", { href: recipe.source_url, rel: "noopener noreferrer", target: "_blank" }, "Original page")) : null));
}

function backLink() {
  return el("p", {}, el("a", { href: "#/recipes" }, "← All recipes"));
}

function timesLine(recipe) {
  const parts = [["Prep", recipe.prep_time_minutes], ["Cook", recipe.cook_time_minutes], ["Total", recipe.total_time_minutes]]
    .filter(([, minutes]) => minutes).map(([name, minutes]) => `${name} ${minutes} min`);
  return parts.length ? el("p", { class: "times" }, parts.join(" · ")) : null;
}

function scaleForm(recipe) {
  if (!recipe.servings) return el("p", {}, "This recipe does not say how many it serves, so it cannot be scaled.");
  const current = recipe.scaling ? recipe.scaling.to_servings : recipe.servings;
  const input = el("input", { type: "number", min: 1, max: 1000, step: 1, name: "servings", id: "servings", value: current, required: true });
  return el("form", { class: "scale", onsubmit: (event) => {
    event.preventDefault();
    location.hash = `#/recipes?id=${encodeURIComponent(recipe.id)}&servings=${encodeURIComponent(input.value)}`;
  } }, field("Servings", input), el("button", { type: "submit" }, "Scale"));
}

function scalingNote(recipe) {
  if (!recipe.scaling) return null;
  const { from_servings: from, to_servings: to, unscaled } = recipe.scaling;
  const note = `Scaled from ${from} to ${to} servings.` + (unscaled.length ? ` ${unscaled.length} line(s) without an amount are as written.` : "");
  return el("p", { class: "scaling", id: "scaling-note" }, note);
}

function ingredientList(ingredients) {
  const items = [];
  let group = null;
  for (const line of ingredients) {
    if (line.group && line.group !== group) items.push(el("li", { class: "group" }, el("strong", {}, line.group)));
    group = line.group;
    items.push(el("li", {}, line.text));
  }
  return el("ul", { class: "ingredients" }, items);
}

function stepList(recipe) {
  const sections = new Map((recipe.sections || []).map((section) => [section.start, section.name]));
  const items = [];
  recipe.steps.forEach((step, index) => {
    if (sections.has(index)) items.push(el("li", { class: "section" }, el("strong", {}, sections.get(index))));
    items.push(el("li", {}, step));
  });
  return el("ol", { class: "steps" }, items);
}
