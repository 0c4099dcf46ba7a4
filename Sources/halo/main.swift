import HaloServices
print("halo \(HaloServicesInfo.sdkVersion)")
