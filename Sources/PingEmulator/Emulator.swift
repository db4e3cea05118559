import Foundation
import CSodium
public let x = 1
