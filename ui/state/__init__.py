"""What the visitor decided: session state and the URL (session.py), the shared sidebar (sidebar.py) that makes the
one Settings object (settings.py), shared pickers (controls.py), and which folded sections are open (sections.py)."""
