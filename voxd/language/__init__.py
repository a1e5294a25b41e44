"""English as people say it to a voice assistant, read without a model: numbers (`numbers`),
lengths of time (`durations`), time phrases (`dates`), and sentence templates with typed slots
(`templates`). Pure functions over text; the commands (`voxd.commands`) share them."""
