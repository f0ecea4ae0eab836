"""Third-party reference values: generator scripts that run the real tools, and the records they write (data/)."""
