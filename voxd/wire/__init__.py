"""Wire types: the shapes of what crosses a service boundary, one copy shared by both ends.

A service imports another's wire types from here, never from the other's package, so services stay
free of each other's internals (docs/architecture.md, "Shape"). Each module is one protocol.
"""
