"""Nabla transforms: see the open issues; filled on top of nabla.ops."""
