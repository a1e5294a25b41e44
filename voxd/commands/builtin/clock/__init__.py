"""Time: the time and date, timers, alarms and reminders."""
