// kernels for replicas: filled in by its issue
