"""How the variants play: seeded simulations of whole games under chosen policies."""
