// The page's nav, one list: {path, title, module (a file of js/pages/), admin (shown to
// administrators only)}. The router (js/app.js) imports `module` and calls its render(main, ctx).
// Part B's pages (recipes, meal plan, lists, inbox, talk) append their entries below ours.

export const PAGES = [
  { path: "overview", title: "Overview", module: "overview.js", admin: true },
  { path: "settings", title: "Settings", module: "settings.js", admin: true },
  { path: "people", title: "Households & users", module: "people.js", admin: true },
  { path: "nodes", title: "Nodes", module: "nodes.js", admin: true },
  { path: "logs", title: "Logs", module: "logs.js", admin: true },
  { path: "account", title: "My account", module: "account.js", admin: false },
  // part B: the household's pages, for every user
  { path: "talk", title: "Talk", module: "talk.js", admin: false },
  { path: "recipes", title: "Recipes", module: "recipes.js", admin: false },
  { path: "mealplan", title: "Meal plan", module: "mealplan.js", admin: false },
  { path: "lists", title: "Lists", module: "lists.js", admin: false },
  { path: "reminders", title: "Alarms & reminders", module: "reminders.js", admin: false },
  { path: "inbox", title: "Inbox", module: "inbox.js", admin: false },
];
