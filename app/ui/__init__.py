"""Widgets every page shares: live runs, the plot theme, URL-bound controls, export buttons."""
