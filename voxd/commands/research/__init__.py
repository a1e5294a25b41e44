"""Deep research (issue 21 §6): the `deep_research` command starts a job, and the command center's
research desk carries it out in the background: search through a SearXNG instance, read the top pages
through the web extraction service, write a short report with numbered sources (by the language
model, or the most relevant passages of each source without one) and deliver it to the asker's inbox
through the notifications service, with a push. A job is kept in the command's storage until it is
delivered, so a restart resumes it (docs/commands.md, Deep research)."""
