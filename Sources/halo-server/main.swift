import HaloServer
print("halo-server \(HaloServerInfo.version)")
