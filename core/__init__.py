"""Paperlab's complete implementations, one package per system.

Nothing under ``core`` imports Streamlit or plotly: every system can be used from a notebook or a
script exactly as the app uses it. Shared plumbing (seeding, progress callbacks, validated
configs, checkpoints, device choice, result export) lives in :mod:`core.common`.
"""
