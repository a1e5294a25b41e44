"""The MQTT side of voxd: how the command center reaches a node without the node asking
(docs/architecture.md, Voice pipeline rules, rule 10: "audio reaches the node through a message
broker")."""
