"""Helpers the tests share: file trees (``files``) and running vlint (``run``)."""
