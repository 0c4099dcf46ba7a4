import CGtk
import CAdw
import HaloServices
print("halo-desk")
