// kernels for placement: filled in by its issue
