import HaloServices
print("halo \("0.1.0")")
