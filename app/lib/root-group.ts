/** Id of the virtual root group 'Доступные Файлы' (32 `f`), shared with the server. */
export { ROOT_GROUP_ID } from "../../workers/lib/ids";
