"""What talks to voice nodes: their registration for administrators, the broker and the
announcement routes, the announcer that speaks to a node unasked, and the timer bell."""
