"""Nabla array_api: see the open issues; filled on top of nabla.ops."""
