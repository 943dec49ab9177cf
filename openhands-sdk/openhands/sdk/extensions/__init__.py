"""What skills and plugins share: where they come from (a folder or a git repository), how
they are fetched into a cache, and how they are installed into a folder with a manifest."""
