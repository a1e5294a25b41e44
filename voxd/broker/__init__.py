"""The MQTT side of voxd: how the command center reaches a node without the node asking
(spec voice pipeline rule 10: "audio reaches the node through a message broker")."""
