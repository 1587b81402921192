// intentionally empty: keeps the embed table non-empty until kernels exist
