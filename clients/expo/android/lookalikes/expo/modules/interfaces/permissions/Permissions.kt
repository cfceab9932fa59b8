// Look-alike of expo-modules-core's permissions interfaces (expo/expo,
// packages/expo-modules-core/android/src/main/java/expo/modules/interfaces/permissions/:
// Permissions.java, PermissionsResponseListener.java, PermissionsResponse.kt,
// PermissionsStatus.java), the manager AppContext.permissions hands out. Written in Kotlin because
// this folder is compiled by kotlinc alone: the Java interfaces become Kotlin interfaces, so callers
// implement the listener with an object expression (which the real Java interface accepts too).
// Simplified: the Promise-taking members (they name the legacy Promise type) are absent.
package expo.modules.interfaces.permissions

interface Permissions {
    fun getPermissions(response: PermissionsResponseListener, vararg permissions: String)

    fun askForPermissions(response: PermissionsResponseListener, vararg permissions: String)

    fun hasGrantedPermissions(vararg permissions: String): Boolean

    /** Whether the permission is declared in AndroidManifest.xml. */
    fun isPermissionPresentInManifest(permission: String): Boolean
}

interface PermissionsResponseListener {
    fun onResult(result: Map<String, PermissionsResponse>)
}

data class PermissionsResponse(val status: PermissionsStatus, val canAskAgain: Boolean = true)

enum class PermissionsStatus(val status: String) {
    GRANTED("granted"),
    UNDETERMINED("undetermined"),
    DENIED("denied")
}
