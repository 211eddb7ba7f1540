// kernels for aligned: filled in by its issue
