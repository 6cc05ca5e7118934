"""Tasks and everything that publishes or loads them."""
